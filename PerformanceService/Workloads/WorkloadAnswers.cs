using Workloads;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace PerformanceService.Workloads;

/// <summary>One answer as both paths' types: plain classes for code-first gRPC and both JSON serializers, messages for contract-first.</summary>
public readonly record struct Kept<TModel, TContract>(TModel Model, TContract Contract);

/// <summary>
/// The answers every path serves, so each path does the same server work: made from <see cref="WorkloadData"/> once, on
/// first use, and kept in both shapes; ids are taken modulo <see cref="WorkloadRules.ItemRange"/> so what is kept stays
/// bounded. Users are the exception, made per request on every path alike: a million of them do not stay in memory.
/// </summary>
public sealed class WorkloadAnswers
{
    private readonly Lazy<Kept<M.SmallInts, Cf.SmallInts>[]> _smallInts = new(() => Keep(WorkloadData.SmallInts, ContractFirstConversions.ToContract));
    private readonly Lazy<Kept<M.Book, Cf.Book>[]> _books = new(() => Keep(WorkloadData.Book, ContractFirstConversions.ToContract));
    private readonly Lazy<Kept<M.BigDto, Cf.BigDto>[]> _bigDtos = new(() => Keep(WorkloadData.BigDto, ContractFirstConversions.ToContract));
    private readonly Lazy<Kept<M.BookList, Cf.BookList>> _bookList;

    public WorkloadAnswers()
    {
        _bookList = new(() =>
        {
            var books = new M.BookList { Books = [.. Enumerable.Range(0, WorkloadData.BookCount).Select(id => Book(id).Model)] };
            return new(books, books.ToContract());
        });
    }

    public Kept<M.SmallInts, Cf.SmallInts> SmallInts(int id) => _smallInts.Value[Slot(id)];

    public Kept<M.Book, Cf.Book> Book(int id) => _books.Value[Slot(id)];

    public Kept<M.BookList, Cf.BookList> Books() => _bookList.Value;

    public Kept<M.BigDto, Cf.BigDto> BigDto(int id) => _bigDtos.Value[Slot(id)];

    /// <summary>Page <paramref name="page"/> of <paramref name="size"/> kept big DTOs; a new list each time, the items shared.</summary>
    public M.BigDtoList BigDtos(int page, int size) => new() { Items = [.. Ids(page, size).Select(id => BigDto(id).Model)] };

    public Cf.BigDtoList BigDtoMessages(int page, int size)
    {
        var list = new Cf.BigDtoList();
        list.Items.AddRange(Ids(page, size).Select(id => BigDto(id).Contract));
        return list;
    }

    public static M.UserList Users(int page, int size) => WorkloadData.Users(page, size);

    public static Cf.UserList UserMessages(int page, int size)
    {
        var list = new Cf.UserList();
        list.Users.AddRange(UserIds(page, size).Select(id => WorkloadData.User(id).ToContract()));
        return list;
    }

    /// <summary>The users of a page, in order, as <see cref="WorkloadData.Users"/> takes them: never past the last user.</summary>
    public static IEnumerable<int> UserIds(int page, int size)
    {
        var first = Math.Min((long)page * size, WorkloadData.UserCount);
        var end = Math.Min(first + size, WorkloadData.UserCount);
        for (var id = first; id < end; id++)
        {
            yield return (int)id;
        }
    }

    private static int Slot(int id) => id % WorkloadRules.ItemRange;

    private static IEnumerable<int> Ids(int page, int size)
    {
        var first = (long)page * size;
        for (var id = first; id < first + size; id++)
        {
            yield return (int)(id % WorkloadRules.ItemRange);
        }
    }

    private static Kept<TModel, TContract>[] Keep<TModel, TContract>(Func<int, TModel> make, Func<TModel, TContract> toContract) =>
        [.. Enumerable.Range(0, WorkloadRules.ItemRange).Select(id => make(id)).Select(model => new Kept<TModel, TContract>(model, toContract(model)))];
}
