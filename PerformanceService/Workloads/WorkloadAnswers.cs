using Workloads;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace PerformanceService.Workloads;

/// <summary>
/// The answers every path serves, so each path does the same server work: a kind's items made by its
/// <see cref="WorkloadData"/> maker once, on first use, and kept by their type (the contract-first messages, converted once, by theirs);
/// ids are taken modulo <see cref="WorkloadRules.ItemRange"/> so what is kept stays bounded. Users are the exception,
/// made per request on every path alike: a million of them do not stay in memory.
/// </summary>
public static class WorkloadAnswers
{
    public static T Item<T>(Func<int, T> make, int id) => (Kept<T>.Items ?? Keep(make, WorkloadRules.ItemRange))[id % WorkloadRules.ItemRange];

    /// <summary>An answer that has no id, kept once.</summary>
    public static T One<T>(Func<T> make) => (Kept<T>.Items ?? Keep(Once(make), 1))[0];

    /// <summary>Page <paramref name="page"/> of <paramref name="size"/> kept big DTOs; a new list each time, the items shared.</summary>
    public static M.BigDtoList BigDtos(int page, int size) => new() { Items = [.. Ids(page, size).Select(id => Item(WorkloadData.BigDto, id))] };

    public static Cf.BigDtoList BigDtoMessages(int page, int size) =>
        new() { Items = { Ids(page, size).Select(id => Item(static key => WorkloadData.BigDto(key).ToContract(), id)) } };

    public static Cf.UserList UserMessages(int page, int size) => new() { Users = { WorkloadData.UserIds(page, size).Select(id => WorkloadData.User(id).ToContract()) } };

    // In long, so a page far past the kept range still wraps into it.
    private static IEnumerable<int> Ids(int page, int size) => Enumerable.Range(0, size).Select(i => (int)(((long)page * size + i) % WorkloadRules.ItemRange));

    // Apart from the caller, so an answer already kept costs no closure.
    private static Func<int, T> Once<T>(Func<T> make) => _ => make();

    private static T[] Keep<T>(Func<int, T> make, int count)
    {
        lock (Kept<T>.Gate)
        {
            return Kept<T>.Items ??= [.. Enumerable.Range(0, count).Select(make)];
        }
    }

    private static class Kept<T>
    {
        public static readonly Lock Gate = new();
        public static T[]? Items;
    }
}
