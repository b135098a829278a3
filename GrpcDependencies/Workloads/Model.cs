using System.Text.Json;
using System.Text.Json.Serialization;
using Google.Protobuf;
using Google.Protobuf.WellKnownTypes;
using ProtoBuf;
using ProtoBuf.Grpc;
using ProtoBuf.Grpc.Configuration;
using Workloads.Model;
using Cf = Workloads.ContractFirst;

// The workloads' contract in C#, as Protos/workloads.proto is for contract-first: the code-first service, the plain classes
// it and both JSON serializers send, each class's checksum and its contract-first message, and the messages' checksums.
namespace Workloads
{
    /// <summary>
    /// The workloads' operations code-first (protobuf-net.Grpc): an interface and plain classes, no .proto file. The same
    /// operations as Protos/workloads.proto, under a service name of their own so both can be served side by side.
    /// </summary>
    [Service("workloads.CodeFirstWorkloads")]
    public interface ICodeFirstWorkloads
    {
        ValueTask<SmallInts> GetSmallIntsAsync(ItemRequest request, CallContext context = default);

        ValueTask<Book> GetBookAsync(ItemRequest request, CallContext context = default);

        ValueTask<BookList> GetBooksAsync(ItemRequest request, CallContext context = default);

        ValueTask<BigDto> GetBigDtoAsync(ItemRequest request, CallContext context = default);

        ValueTask<BigDtoList> GetBigDtosAsync(PageRequest request, CallContext context = default);

        ValueTask<WriteAck> WriteLogAsync(LogRecord record, CallContext context = default);

        ValueTask<WriteAck> UploadAsync(IAsyncEnumerable<FileChunk> chunks, CallContext context = default);

        ValueTask<UserList> GetUsersAsync(PageRequest request, CallContext context = default);

        IAsyncEnumerable<User> StreamUsersAsync(PageRequest request, CallContext context = default);
    }

    /// <summary>
    /// System.Text.Json, source-generated, camelCase both ways (the web defaults): the 2019 study's client read camelCase
    /// with case-sensitive default options and silently bound nothing; this context binds every field, and the checksum proves it.
    /// </summary>
    [JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
    [JsonSerializable(typeof(SmallInts))]
    [JsonSerializable(typeof(Book))]
    [JsonSerializable(typeof(BookList))]
    [JsonSerializable(typeof(BigDto))]
    [JsonSerializable(typeof(BigDtoList))]
    [JsonSerializable(typeof(LogRecord))]
    [JsonSerializable(typeof(WriteAck))]
    [JsonSerializable(typeof(UserList))]
    public sealed partial class WorkloadJsonContext : JsonSerializerContext;

    /// <summary>Newtonsoft.Json with the same camelCase names, on both sides.</summary>
    public static class WorkloadNewtonsoft
    {
        public static Newtonsoft.Json.JsonSerializerSettings Settings { get; } = Configure(new());

        public static Newtonsoft.Json.JsonSerializerSettings Configure(Newtonsoft.Json.JsonSerializerSettings settings)
        {
            settings.ContractResolver = new Newtonsoft.Json.Serialization.CamelCasePropertyNamesContractResolver();
            settings.DateTimeZoneHandling = Newtonsoft.Json.DateTimeZoneHandling.Utc;
            settings.DateParseHandling = Newtonsoft.Json.DateParseHandling.DateTime;
            return settings;
        }
    }
}

// The workloads' data as plain classes: what code-first gRPC (protobuf-net, CompatibilityLevel 300: DateTime as
// google.protobuf.Timestamp, Guid and decimal as strings) and both JSON serializers send. Field numbers match
// Protos/workloads.proto wherever the types agree, so the two gRPC paths differ only where protobuf-net's mapping does.
namespace Workloads.Model
{
    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class ItemRequest
    {
        [ProtoMember(1)] public int Id { get; set; }
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class PageRequest
    {
        [ProtoMember(1)] public int Page { get; set; }
        [ProtoMember(2)] public int Size { get; set; }
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class SmallInts : IWorkloadValue
    {
        [ProtoMember(1)] public int SalesQuantityLastMonth { get; set; }
        [ProtoMember(2)] public int SalesQuantityLastYear { get; set; }
        [ProtoMember(3)] public int SalesQuantityTotal { get; set; }

        public void AddTo(WorkloadHash h) => h.Int(SalesQuantityLastMonth).Int(SalesQuantityLastYear).Int(SalesQuantityTotal);

        public Cf.SmallInts ToContract() =>
            new() { SalesQuantityLastMonth = SalesQuantityLastMonth, SalesQuantityLastYear = SalesQuantityLastYear, SalesQuantityTotal = SalesQuantityTotal };
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class Author
    {
        [ProtoMember(1)] public string FirstName { get; set; } = "";
        [ProtoMember(2)] public string LastName { get; set; } = "";
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class Book : IWorkloadValue
    {
        [ProtoMember(1)] public string Isbn { get; set; } = "";
        [ProtoMember(2)] public string Title { get; set; } = "";
        [ProtoMember(3)] public int YearPublished { get; set; }
        [ProtoMember(4)] public Author? Author { get; set; }

        public void AddTo(WorkloadHash h) =>
            h.Text(Isbn).Text(Title).Int(YearPublished).Present(Author).Text(Author?.FirstName).Text(Author?.LastName);

        public Cf.Book ToContract() => new()
        {
            Isbn = Isbn, Title = Title, YearPublished = YearPublished,
            Author = Author is null ? null : new Cf.Author { FirstName = Author.FirstName, LastName = Author.LastName },
        };
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class BookList : IWorkloadValue
    {
        [ProtoMember(1)] public List<Book> Books { get; set; } = [];

        public void AddTo(WorkloadHash h) => h.Each(Books);

        public Cf.BookList ToContract() => new() { Books = { Books.Select(book => book.ToContract()) } };
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class BigDtoDetail
    {
        [ProtoMember(1)] public Guid Id { get; set; }
        [ProtoMember(2)] public string Text { get; set; } = "";
        [ProtoMember(3)] public byte[] Data { get; set; } = [];
        [ProtoMember(4)] public string Paragraph { get; set; } = "";
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class BigDto : IWorkloadValue
    {
        [ProtoMember(1)] public Guid Id { get; set; }
        [ProtoMember(2)] public string Name { get; set; } = "";
        [ProtoMember(3)] public DateTime CreatedAt { get; set; }
        [ProtoMember(4)] public int Quantity { get; set; }
        [ProtoMember(5)] public float Ratio { get; set; }
        [ProtoMember(6)] public decimal Price { get; set; }
        [ProtoMember(7)] public double Score { get; set; }
        [ProtoMember(8)] public long Total { get; set; }
        [ProtoMember(9)] public BigDtoDetail? Detail { get; set; }
        [ProtoMember(10)] public List<string> Paragraphs { get; set; } = [];

        public void AddTo(WorkloadHash h)
        {
            h.Text(Id.ToString()).Text(Name).Time(CreatedAt).Int(Quantity).Float(Ratio).Decimal(Price).Double(Score).Long(Total).Present(Detail);
            if (Detail is { } detail)
            {
                h.Text(detail.Id.ToString()).Text(detail.Text).Bytes(detail.Data).Text(detail.Paragraph);
            }

            h.Texts(Paragraphs);
        }

        public Cf.BigDto ToContract() => new()
        {
            Id = Id.ToString(), Name = Name, CreatedAt = Timestamp.FromDateTime(CreatedAt), Quantity = Quantity, Ratio = Ratio,
            Price = new Cf.DecimalValue { Units = WorkloadHash.Units(Price), Nanos = WorkloadHash.Nanos(Price) }, Score = Score, Total = Total,
            Detail = Detail is not { } d ? null : new Cf.BigDtoDetail { Id = d.Id.ToString(), Text = d.Text, Data = ByteString.CopyFrom(d.Data), Paragraph = d.Paragraph },
            Paragraphs = { Paragraphs },
        };
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class BigDtoList : IWorkloadValue
    {
        [ProtoMember(1)] public List<BigDto> Items { get; set; } = [];

        public void AddTo(WorkloadHash h) => h.Each(Items);
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class LogRecord : IWorkloadValue
    {
        [ProtoMember(1)] public DateTime Timestamp { get; set; }
        [ProtoMember(2)] public string Text { get; set; } = "";
        [ProtoMember(3)] public int Level { get; set; }
        [ProtoMember(4)] public string Category { get; set; } = "";

        public void AddTo(WorkloadHash h) => h.Time(Timestamp).Text(Text).Int(Level).Text(Category);

        public Cf.LogRecord ToContract() =>
            new() { Timestamp = Google.Protobuf.WellKnownTypes.Timestamp.FromDateTime(Timestamp), Text = Text, Level = Level, Category = Category };
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class WriteAck
    {
        [ProtoMember(1)] public ulong Checksum { get; set; }
        [ProtoMember(2)] public long Length { get; set; }
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class FileChunk
    {
        [ProtoMember(1)] public ReadOnlyMemory<byte> Data { get; set; }
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class User : IWorkloadValue
    {
        [ProtoMember(1)] public string UserName { get; set; } = "";
        [ProtoMember(2)] public string Email { get; set; } = "";
        [ProtoMember(3)] public int Age { get; set; }
        [ProtoMember(4)] public string Address { get; set; } = "";
        [ProtoMember(5)] public DateTime CreateDateTime { get; set; }

        public void AddTo(WorkloadHash h) => h.Text(UserName).Text(Email).Int(Age).Text(Address).Time(CreateDateTime);

        public Cf.User ToContract() =>
            new() { UserName = UserName, Email = Email, Age = Age, Address = Address, CreateDateTime = Timestamp.FromDateTime(CreateDateTime) };
    }

    [ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
    public sealed class UserList : IWorkloadValue
    {
        [ProtoMember(1)] public List<User> Users { get; set; } = [];

        public void AddTo(WorkloadHash h) => h.Each(Users);
    }
}

// The contract-first messages' checksums, field for field as their plain classes' above.
namespace Workloads.ContractFirst
{
    public sealed partial class SmallInts : IWorkloadValue
    {
        public void AddTo(WorkloadHash h) => h.Int(SalesQuantityLastMonth).Int(SalesQuantityLastYear).Int(SalesQuantityTotal);
    }

    public sealed partial class Book : IWorkloadValue
    {
        public void AddTo(WorkloadHash h) =>
            h.Text(Isbn).Text(Title).Int(YearPublished).Present(Author).Text(Author?.FirstName).Text(Author?.LastName);
    }

    public sealed partial class BookList : IWorkloadValue
    {
        public void AddTo(WorkloadHash h) => h.Each(Books);
    }

    public sealed partial class BigDto : IWorkloadValue
    {
        public void AddTo(WorkloadHash h)
        {
            h.Text(Id).Text(Name).Time(CreatedAt).Int(Quantity).Float(Ratio).Decimal(Price).Double(Score).Long(Total).Present(Detail);
            if (Detail is { } detail)
            {
                h.Text(detail.Id).Text(detail.Text).Bytes(detail.Data.Span).Text(detail.Paragraph);
            }

            h.Texts(Paragraphs);
        }
    }

    public sealed partial class BigDtoList : IWorkloadValue
    {
        public void AddTo(WorkloadHash h) => h.Each(Items);
    }

    public sealed partial class LogRecord : IWorkloadValue
    {
        public void AddTo(WorkloadHash h) => h.Time(Timestamp).Text(Text).Int(Level).Text(Category);
    }

    public sealed partial class User : IWorkloadValue
    {
        public void AddTo(WorkloadHash h) => h.Text(UserName).Text(Email).Int(Age).Text(Address).Time(CreateDateTime);
    }

    public sealed partial class UserList : IWorkloadValue
    {
        public void AddTo(WorkloadHash h) => h.Each(Users);
    }
}
