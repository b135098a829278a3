using System.IO.Hashing;
using System.Runtime.InteropServices;
using Google.Protobuf;
using Google.Protobuf.WellKnownTypes;
using Cf = Workloads.ContractFirst;
using M = Workloads.Model;

namespace Workloads;

/// <summary>
/// One XxHash64 over every field's value, the same for the contract-first messages and the plain classes, so each side
/// can prove it got exactly what the other sent (a JSON client that binds nothing, or a lost chunk, changes it).
/// </summary>
public static class WorkloadChecksum
{
    public static ulong Of(M.SmallInts value) => Hash(value, static (h, v) => h.Int(v.SalesQuantityLastMonth).Int(v.SalesQuantityLastYear).Int(v.SalesQuantityTotal));

    public static ulong Of(Cf.SmallInts value) => Hash(value, static (h, v) => h.Int(v.SalesQuantityLastMonth).Int(v.SalesQuantityLastYear).Int(v.SalesQuantityTotal));

    public static ulong Of(M.Book value) => Hash(value, Add);

    public static ulong Of(Cf.Book value) => Hash(value, Add);

    public static ulong Of(M.BookList value) => Hash(value, static (h, v) => h.Each(v.Books, Add));

    public static ulong Of(Cf.BookList value) => Hash(value, static (h, v) => h.Each(v.Books, Add));

    public static ulong Of(M.BigDto value) => Hash(value, Add);

    public static ulong Of(Cf.BigDto value) => Hash(value, Add);

    public static ulong Of(M.BigDtoList value) => Hash(value, static (h, v) => h.Each(v.Items, Add));

    public static ulong Of(Cf.BigDtoList value) => Hash(value, static (h, v) => h.Each(v.Items, Add));

    public static ulong Of(M.LogRecord value) => Hash(value, static (h, v) => h.Time(v.Timestamp).Text(v.Text).Int(v.Level).Text(v.Category));

    public static ulong Of(Cf.LogRecord value) => Hash(value, static (h, v) => h.Time(v.Timestamp).Text(v.Text).Int(v.Level).Text(v.Category));

    public static ulong Of(M.User value) => Hash(value, Add);

    public static ulong Of(Cf.User value) => Hash(value, Add);

    public static ulong Of(M.UserList value) => Hash(value, static (h, v) => h.Each(v.Users, Add));

    public static ulong Of(Cf.UserList value) => Hash(value, static (h, v) => h.Each(v.Users, Add));

    /// <summary>The checksum of the first <paramref name="length"/> bytes of the upload file (what the service acknowledges).</summary>
    public static ulong OfFile(long length)
    {
        var hash = new XxHash64();
        var buffer = new byte[WorkloadData.FileChunkBytes];
        for (long offset = 0; offset < length; offset += buffer.Length)
        {
            var span = buffer.AsSpan(0, (int)Math.Min(buffer.Length, length - offset));
            WorkloadData.FileBytes(offset, span);
            hash.Append(span);
        }

        return hash.GetCurrentHashAsUInt64();
    }

    private static ulong Hash<T>(T value, Action<Builder, T> add)
    {
        var builder = new Builder();
        add(builder, value);
        return builder.Checksum;
    }

    private static void Add(Builder h, M.Book v) =>
        h.Text(v.Isbn).Text(v.Title).Int(v.YearPublished).Present(v.Author).Text(v.Author?.FirstName).Text(v.Author?.LastName);

    private static void Add(Builder h, Cf.Book v) =>
        h.Text(v.Isbn).Text(v.Title).Int(v.YearPublished).Present(v.Author).Text(v.Author?.FirstName).Text(v.Author?.LastName);

    private static void Add(Builder h, M.BigDto v)
    {
        h.Text(v.Id.ToString()).Text(v.Name).Time(v.CreatedAt).Int(v.Quantity).Float(v.Ratio).Decimal(v.Price).Double(v.Score).Long(v.Total).Present(v.Detail);
        if (v.Detail is { } detail)
        {
            h.Text(detail.Id.ToString()).Text(detail.Text).Bytes(detail.Data).Text(detail.Paragraph);
        }

        h.Each(v.Paragraphs, static (h, paragraph) => h.Text(paragraph));
    }

    private static void Add(Builder h, Cf.BigDto v)
    {
        h.Text(v.Id).Text(v.Name).Time(v.CreatedAt).Int(v.Quantity).Float(v.Ratio).Decimal(v.Price).Double(v.Score).Long(v.Total).Present(v.Detail);
        if (v.Detail is { } detail)
        {
            h.Text(detail.Id).Text(detail.Text).Bytes(detail.Data.Span).Text(detail.Paragraph);
        }

        h.Each(v.Paragraphs, static (h, paragraph) => h.Text(paragraph));
    }

    private static void Add(Builder h, M.User v) => h.Text(v.UserName).Text(v.Email).Int(v.Age).Text(v.Address).Time(v.CreateDateTime);

    private static void Add(Builder h, Cf.User v) => h.Text(v.UserName).Text(v.Email).Int(v.Age).Text(v.Address).Time(v.CreateDateTime);

    /// <summary>Appends each value in a fixed little-endian form; text as its UTF-16 code units, after its length.</summary>
    private sealed class Builder
    {
        private readonly XxHash64 _hash = new();

        public ulong Checksum => _hash.GetCurrentHashAsUInt64();

        public Builder Int(int value) => Long(value);

        public Builder Long(long value)
        {
            Span<byte> bytes = stackalloc byte[8];
            BitConverter.TryWriteBytes(bytes, value);
            _hash.Append(bytes);
            return this;
        }

        public Builder Float(float value) => Int(BitConverter.SingleToInt32Bits(value));

        public Builder Double(double value) => Long(BitConverter.DoubleToInt64Bits(value));

        public Builder Decimal(decimal value)
        {
            var units = (long)decimal.Truncate(value);
            return Long(units).Int((int)((value - units) * 1_000_000_000m));
        }

        public Builder Decimal(Cf.DecimalValue? value) => value is null ? Long(-1).Int(-1) : Long(value.Units).Int(value.Nanos);

        public Builder Time(DateTime value) => Long(value.Kind == DateTimeKind.Local ? value.ToUniversalTime().Ticks : value.Ticks);

        public Builder Time(Timestamp? value) => Long(value is null ? -1 : value.ToDateTime().Ticks);

        public Builder Text(string? value) => value is null ? Long(-1) : Long(value.Length).Raw(MemoryMarshal.AsBytes(value.AsSpan()));

        public Builder Bytes(ReadOnlySpan<byte> value) => Long(value.Length).Raw(value);

        public Builder Present(object? value) => Int(value is null ? 0 : 1);

        public Builder Each<T>(IReadOnlyCollection<T> items, Action<Builder, T> add)
        {
            Long(items.Count);
            foreach (var item in items)
            {
                add(this, item);
            }

            return this;
        }

        private Builder Raw(ReadOnlySpan<byte> bytes)
        {
            _hash.Append(bytes);
            return this;
        }
    }
}

/// <summary>The plain classes as contract-first messages, for the contract-first service and for tests.</summary>
public static class ContractFirstConversions
{
    public static Cf.SmallInts ToContract(this M.SmallInts v) => new()
    {
        SalesQuantityLastMonth = v.SalesQuantityLastMonth, SalesQuantityLastYear = v.SalesQuantityLastYear, SalesQuantityTotal = v.SalesQuantityTotal,
    };

    public static Cf.Book ToContract(this M.Book v) => new()
    {
        Isbn = v.Isbn, Title = v.Title, YearPublished = v.YearPublished,
        Author = v.Author is null ? null : new Cf.Author { FirstName = v.Author.FirstName, LastName = v.Author.LastName },
    };

    public static Cf.BookList ToContract(this M.BookList v) => new() { Books = { v.Books.Select(ToContract) } };

    public static Cf.BigDto ToContract(this M.BigDto v)
    {
        var units = (long)decimal.Truncate(v.Price);
        return new()
        {
            Id = v.Id.ToString(), Name = v.Name, CreatedAt = Timestamp.FromDateTime(v.CreatedAt), Quantity = v.Quantity, Ratio = v.Ratio,
            Price = new Cf.DecimalValue { Units = units, Nanos = (int)((v.Price - units) * 1_000_000_000m) },
            Score = v.Score, Total = v.Total,
            Detail = v.Detail is not { } d ? null : new Cf.BigDtoDetail { Id = d.Id.ToString(), Text = d.Text, Data = ByteString.CopyFrom(d.Data), Paragraph = d.Paragraph },
            Paragraphs = { v.Paragraphs },
        };
    }

    public static Cf.BigDtoList ToContract(this M.BigDtoList v) => new() { Items = { v.Items.Select(ToContract) } };

    public static Cf.LogRecord ToContract(this M.LogRecord v) => new()
    {
        Timestamp = Timestamp.FromDateTime(v.Timestamp), Text = v.Text, Level = v.Level, Category = v.Category,
    };

    public static Cf.User ToContract(this M.User v) => new()
    {
        UserName = v.UserName, Email = v.Email, Age = v.Age, Address = v.Address, CreateDateTime = Timestamp.FromDateTime(v.CreateDateTime),
    };

    public static Cf.UserList ToContract(this M.UserList v) => new() { Users = { v.Users.Select(ToContract) } };
}
