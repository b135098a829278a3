using System.Buffers;
using Workloads.Model;

namespace Workloads;

/// <summary>
/// The data every path sends, generated from a fixed seed so the service and the client make the same values without
/// exchanging them: ASCII text, exactly representable floats, whole-millisecond UTC times (all survive JSON unchanged).
/// Item <c>i</c> of a kind depends only on <c>i</c>, so a page or a single item can be made alone.
/// </summary>
public static class WorkloadData
{
    public const ulong Seed = 0x6772_7063_6270_2026;
    public const int BookCount = 1000;
    public const int CollectionSize = 500;
    public const int PageSize = 20;
    public const int UserCount = 1_000_000;
    public const int UserPageSize = 1000;

    /// <summary>
    /// The upload file's piece: one gRPC message of the client stream, one write of the REST body, on every path. 64 KiB:
    /// each gRPC service deserializes every chunk into an array of its own (Google.Protobuf's ByteString, protobuf-net's
    /// ReadOnlyMemory), and from 85 000 bytes that array would go to the large object heap, which only a gen2 GC
    /// reclaims; and four chunks, what issue 11 lets an upload hold on either side, stay at 256 KiB.
    /// </summary>
    public const int FileChunkBytes = 64 * 1024;

    private static readonly DateTime Epoch = new(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    private const string Letters = "abcdefghijklmnopqrstuvwxyz";
    private const string Digits = "0123456789";
    private static readonly string[] Words =
    [
        "grpc", "channel", "stream", "latency", "socket", "buffer", "frame", "header", "server", "client", "request",
        "answer", "window", "payload", "message", "protocol", "connection", "deadline", "json", "binary",
    ];

    public static SmallInts SmallInts(int id)
    {
        var random = new SplitMix(Kind.SmallInts, id);
        return new SmallInts
        {
            SalesQuantityLastMonth = random.Next(100, 16_000),
            SalesQuantityLastYear = random.Next(1_000, 16_000),
            SalesQuantityTotal = random.Next(16_384, 2_000_000),
        };
    }

    public static Book Book(int id)
    {
        var random = new SplitMix(Kind.Book, id);
        return new Book
        {
            Isbn = random.Text(Digits, 10),
            Title = Capitalised(random.Text(Letters, 20)),
            YearPublished = random.Next(1900, 2026),
            Author = new Author { FirstName = Capitalised(random.Text(Letters, 10)), LastName = Capitalised(random.Text(Letters, 10)) },
        };
    }

    public static BookList Books() => new() { Books = [.. Enumerable.Range(0, BookCount).Select(Book)] };

    public static BigDto BigDto(int id)
    {
        var random = new SplitMix(Kind.BigDto, id);
        var data = new byte[256];
        random.Fill(data);
        return new BigDto
        {
            Id = random.Guid(),
            Name = Capitalised(random.Text(Letters, 24)),
            CreatedAt = Epoch.AddMilliseconds(random.Next(0, int.MaxValue)),
            Quantity = random.Next(0, 100_000),
            Ratio = random.Next(0, 1 << 12) / 8f,
            Price = random.Next(0, 10_000_000) / 100m,
            Score = random.Next(0, 1 << 20) / 1024d,
            Total = (long)random.Next(0, int.MaxValue) * random.Next(1, 1000),
            Detail = new BigDtoDetail
            {
                Id = random.Guid(),
                Text = random.Sentence(40),
                Data = data,
                Paragraph = random.Sentence(430),
            },
            Paragraphs = [random.Sentence(430), random.Sentence(430), random.Sentence(430)],
        };
    }

    /// <summary>Items <c>page × size</c> to <c>page × size + size − 1</c>: the collection is page 0 of 500, a page is 20.</summary>
    public static BigDtoList BigDtos(int page, int size) => new() { Items = [.. Enumerable.Range(page * size, size).Select(BigDto)] };

    public static LogRecord LogRecord(int id)
    {
        var random = new SplitMix(Kind.LogRecord, id);
        return new LogRecord
        {
            Timestamp = Epoch.AddMilliseconds(random.Next(0, int.MaxValue)),
            Text = random.Sentence(60),
            Level = random.Next(0, 6),
            Category = "Workloads." + Capitalised(random.Text(Letters, 12)),
        };
    }

    public static User User(int id)
    {
        var random = new SplitMix(Kind.User, id);
        var name = random.Text(Letters, 10) + id;
        return new User
        {
            UserName = name,
            Email = name + "@example.com",
            Age = random.Next(18, 90),
            Address = random.Text(Letters + Digits, 36),
            CreateDateTime = Epoch.AddMilliseconds(random.Next(0, int.MaxValue)),
        };
    }

    public static UserList Users(int page, int size) => new() { Users = [.. UserIds(page, size).Select(User)] };

    /// <summary>The ids of users <c>page × size</c> onwards, in order, never past <see cref="UserCount"/>.</summary>
    public static IEnumerable<int> UserIds(int page, int size)
    {
        var first = Math.Min((long)page * size, UserCount);
        return Enumerable.Range((int)first, (int)Math.Min(size, UserCount - first));
    }

    /// <summary>Bytes <paramref name="offset"/> onwards of the file every upload sends: a fixed pseudo-random 1 MiB block, repeated.</summary>
    public static void FileBytes(long offset, Span<byte> destination)
    {
        var block = FileBlock.Value;
        while (!destination.IsEmpty)
        {
            var start = (int)(offset % block.Length);
            var length = Math.Min(destination.Length, block.Length - start);
            block.AsSpan(start, length).CopyTo(destination);
            destination = destination[length..];
            offset += length;
        }
    }

    /// <summary>
    /// The file's first <paramref name="length"/> bytes a chunk (<see cref="FileChunkBytes"/>) at a time, each in the same
    /// pooled buffer: a chunk is used up before the next is asked for, so the file is never in memory.
    /// </summary>
    public static IEnumerable<ReadOnlyMemory<byte>> FileChunks(long length)
    {
        var buffer = ArrayPool<byte>.Shared.Rent(FileChunkBytes);
        try
        {
            for (long offset = 0; offset < length; offset += FileChunkBytes)
            {
                var chunk = buffer.AsMemory(0, (int)Math.Min(FileChunkBytes, length - offset));
                FileBytes(offset, chunk.Span);
                yield return chunk;
            }
        }
        finally
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }

    private static readonly Lazy<byte[]> FileBlock = new(() =>
    {
        var block = new byte[1 << 20];
        new SplitMix(Kind.File, 0).Fill(block);
        return block;
    });

    private static string Capitalised(string word) => char.ToUpperInvariant(word[0]) + word[1..];

    private enum Kind
    {
        SmallInts = 1,
        Book,
        BigDto,
        LogRecord,
        User,
        File,
    }

    /// <summary>SplitMix64: tiny, fast, and the same numbers on every runtime (System.Random's seeded sequence is not promised).</summary>
    private struct SplitMix(Kind kind, int id)
    {
        private ulong _state = Seed ^ ((ulong)kind << 56) ^ (ulong)(uint)id * 0x9E37_79B9_7F4A_7C15;

        public ulong NextUInt64()
        {
            var z = _state += 0x9E37_79B9_7F4A_7C15;
            z = (z ^ (z >> 30)) * 0xBF58_476D_1CE4_E5B9;
            z = (z ^ (z >> 27)) * 0x94D0_49BB_1331_11EB;
            return z ^ (z >> 31);
        }

        public int Next(int from, int to) => from + (int)(NextUInt64() % (ulong)(to - from));

        public string Text(string alphabet, int length)
        {
            Span<char> text = stackalloc char[length];
            for (var i = 0; i < text.Length; i++)
            {
                text[i] = alphabet[(int)(NextUInt64() % (ulong)alphabet.Length)];
            }

            return new string(text);
        }

        /// <summary>Words separated by spaces, ending in a full stop, exactly <paramref name="length"/> characters long.</summary>
        public string Sentence(int length)
        {
            var text = new System.Text.StringBuilder(length + 12);
            while (text.Length < length)
            {
                text.Append(Words[Next(0, Words.Length)]).Append(' ');
            }

            text.Length = length - 1;
            return text.Append('.').ToString();
        }

        public Guid Guid()
        {
            Span<byte> bytes = stackalloc byte[16];
            Fill(bytes);
            return new Guid(bytes);
        }

        public void Fill(Span<byte> destination)
        {
            for (var i = 0; i < destination.Length; i += 8)
            {
                var value = NextUInt64();
                for (var j = 0; j < 8 && i + j < destination.Length; j++)
                {
                    destination[i + j] = (byte)(value >> (8 * j));
                }
            }
        }
    }
}
