using ProtoBuf;

namespace Workloads.Model;

// The workloads' data as plain classes: what code-first gRPC (protobuf-net, CompatibilityLevel 300: DateTime as
// google.protobuf.Timestamp, Guid and decimal as strings) and both JSON serializers send. Field numbers match
// Protos/workloads.proto wherever the types agree, so the two gRPC paths differ only where protobuf-net's mapping does.

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
public sealed class SmallInts
{
    [ProtoMember(1)] public int SalesQuantityLastMonth { get; set; }
    [ProtoMember(2)] public int SalesQuantityLastYear { get; set; }
    [ProtoMember(3)] public int SalesQuantityTotal { get; set; }
}

[ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
public sealed class Author
{
    [ProtoMember(1)] public string FirstName { get; set; } = "";
    [ProtoMember(2)] public string LastName { get; set; } = "";
}

[ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
public sealed class Book
{
    [ProtoMember(1)] public string Isbn { get; set; } = "";
    [ProtoMember(2)] public string Title { get; set; } = "";
    [ProtoMember(3)] public int YearPublished { get; set; }
    [ProtoMember(4)] public Author? Author { get; set; }
}

[ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
public sealed class BookList
{
    [ProtoMember(1)] public List<Book> Books { get; set; } = [];
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
public sealed class BigDto
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
}

[ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
public sealed class BigDtoList
{
    [ProtoMember(1)] public List<BigDto> Items { get; set; } = [];
}

[ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
public sealed class LogRecord
{
    [ProtoMember(1)] public DateTime Timestamp { get; set; }
    [ProtoMember(2)] public string Text { get; set; } = "";
    [ProtoMember(3)] public int Level { get; set; }
    [ProtoMember(4)] public string Category { get; set; } = "";
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
public sealed class User
{
    [ProtoMember(1)] public string UserName { get; set; } = "";
    [ProtoMember(2)] public string Email { get; set; } = "";
    [ProtoMember(3)] public int Age { get; set; }
    [ProtoMember(4)] public string Address { get; set; } = "";
    [ProtoMember(5)] public DateTime CreateDateTime { get; set; }
}

[ProtoContract, CompatibilityLevel(CompatibilityLevel.Level300)]
public sealed class UserList
{
    [ProtoMember(1)] public List<User> Users { get; set; } = [];
}
