using System.Text.Json;
using System.Text.Json.Serialization;
using HdrHistogram;
using HdrHistogram.Utilities;

namespace LoadEngine.Runs;

/// <summary>
/// What a measured phase recorded, before it is summarised: the HdrHistograms with their exact min, max and sum, and
/// every counter as a count, never a ratio. <see cref="ToStats"/> turns them into <see cref="RunStats"/>, for one
/// process and for a run merged from many agents alike, so a merged run's percentiles come from the merged
/// histograms (never an average of percentiles) and its rates from summed counts.
/// </summary>
public sealed record RunFigures(
    DateTimeOffset MeasuredFrom,
    DateTimeOffset MeasuredTo,
    double WallTimeMs,
    long Calls,
    long Failed,
    double? FirstCallMs,
    LatencyDistribution Latency,
    LatencyDistribution? FromActualSend,
    LatencyDistribution? SendLag,
    IReadOnlyDictionary<string, long> StatusCounts,
    int ConnectionsUsed,
    long AllocatedBytes,
    ServiceLoadFigures Service,
    int WarmupCalls,
    double WarmupMs,
    SendCounts? Sends)
{
    public long Succeeded => Calls - Failed;

    /// <summary>The measured phase's first answer as JSON, when its target keeps one (a described method).</summary>
    public string? FirstAnswer { get; init; }

    /// <summary>Answer messages the target counted (a described method's: each message of a stream); 0 when it counts none.</summary>
    public long Answers { get; init; }

    /// <summary>The failed calls by status with the first few distinct messages the server sent (none in figures stored before they were kept).</summary>
    public IReadOnlyList<StatusDetail> StatusDetails { get; init; } = [];

    public RunStats ToStats(IReadOnlyList<double> percentiles) => new(
        Round(WallTimeMs),
        Round(WallTimeMs > 0 ? Succeeded / (WallTimeMs / 1000) : 0),
        Calls,
        Succeeded,
        Failed,
        FirstCallMs is { } first ? Round(first) : null,
        Rounded(Latency.Summarize(percentiles)),
        Latency.ToBins(),
        StatusCounts,
        ConnectionsUsed,
        Round(Calls > 0 ? (double)AllocatedBytes / Calls : 0),
        Service.ToLoad(),
        WarmupCalls,
        Round(WarmupMs))
    {
        LatencyFromActualSend = FromActualSend is null ? null : Rounded(FromActualSend.Summarize(percentiles)),
        Sends = SendLag is null || Sends is null ? null : Sends.ToStats(SendLag),
        FirstAnswer = FirstAnswer,
        AnswersPerCall = Answers > 0 && Calls > 0 ? Round((double)Answers / Calls) : null,
        StatusDetails = StatusDetails,
    };

    /// <summary>
    /// Many agents' figures as one run: histograms added bucket by bucket, counts summed, min of the mins and max of the
    /// maxes. The wall time spans from the first agent's start to the last one's end, so throughput is what the
    /// service saw from all of them; the first call is the slowest agent's (each agent pays its own).
    /// </summary>
    public static RunFigures Merge(IReadOnlyList<RunFigures> parts)
    {
        ArgumentOutOfRangeException.ThrowIfZero(parts.Count);
        var from = parts.Min(part => part.MeasuredFrom);
        var to = parts.Max(part => part.MeasuredTo);
        var statuses = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (var (status, count) in parts.SelectMany(part => part.StatusCounts))
        {
            statuses[status] = statuses.GetValueOrDefault(status) + count;
        }

        return new RunFigures(
            from,
            to,
            (to - from).TotalMilliseconds,
            parts.Sum(part => part.Calls),
            parts.Sum(part => part.Failed),
            parts.Max(part => part.FirstCallMs),
            LatencyDistribution.Merge(parts.Select(part => part.Latency)),
            parts.All(part => part.FromActualSend is not null) ? LatencyDistribution.Merge(parts.Select(part => part.FromActualSend!)) : null,
            parts.All(part => part.SendLag is not null) ? LatencyDistribution.Merge(parts.Select(part => part.SendLag!)) : null,
            statuses,
            parts.Sum(part => part.ConnectionsUsed),
            parts.Sum(part => part.AllocatedBytes),
            ServiceLoadFigures.Merge(parts.Select(part => part.Service)),
            parts.Sum(part => part.WarmupCalls),
            parts.Max(part => part.WarmupMs),
            parts.All(part => part.Sends is not null) ? SendCounts.Merge(parts.Select(part => part.Sends!)) : null)
        {
            FirstAnswer = parts.Select(part => part.FirstAnswer).FirstOrDefault(answer => answer is not null),
            Answers = parts.Sum(part => part.Answers),
            StatusDetails = Runs.StatusDetails.Merge(parts.Select(part => part.StatusDetails ?? [])),
        };
    }

    internal static LatencySummary? Rounded(LatencySummary? s) => s is null
        ? null
        : new LatencySummary(Round(s.MinMs), Round(s.MeanMs), Round(s.StdDevMs), Round(s.P50Ms), Round(s.P90Ms), Round(s.P99Ms), Round(s.P999Ms), Round(s.MaxMs))
        {
            Percentiles = [.. s.Percentiles.Select(p => p with { Ms = Round(p.Ms) })],
        };

    internal static double Round(double value) => Math.Round(value, 4);
}

/// <summary>The service's CPU and memory as sampled from its answers: sums and maxima, so many agents' samples add up.</summary>
public sealed record ServiceLoadFigures(double CpuSum, double CpuMax, double MemoryMax, int Samples)
{
    public ServiceLoad ToLoad() => Samples == 0
        ? new ServiceLoad(null, null, null, 0)
        : new ServiceLoad(RunFigures.Round(CpuSum / Samples), RunFigures.Round(CpuMax), RunFigures.Round(MemoryMax), Samples);

    public static ServiceLoadFigures Merge(IEnumerable<ServiceLoadFigures> parts) => parts.Aggregate(
        new ServiceLoadFigures(0, 0, 0, 0),
        (sum, part) => new ServiceLoadFigures(sum.CpuSum + part.CpuSum, Math.Max(sum.CpuMax, part.CpuMax), Math.Max(sum.MemoryMax, part.MemoryMax), sum.Samples + part.Samples));
}

/// <summary>An arrival-rate schedule's counts: calls due, sent, late and dropped, the rate asked for and how long sending lasted.</summary>
public sealed record SendCounts(long Due, long Sent, long Late, long Dropped, double RequestedRate, double SendingMs)
{
    public SendStats ToStats(LatencyDistribution lag)
    {
        var summary = lag.Summarize([50, 99]);
        return new SendStats(
            Due,
            Sent,
            Late,
            Dropped,
            RunRecorder.LateAfterMs,
            RunFigures.Round(RequestedRate),
            RunFigures.Round(SendingMs > 0 ? Sent / (SendingMs / 1000) : 0),
            RunFigures.Round(summary?.P50Ms ?? 0),
            RunFigures.Round(summary?.P99Ms ?? 0),
            RunFigures.Round(summary?.MaxMs ?? 0));
    }

    /// <summary>Agents send side by side: their rates add up, and sending lasted as long as the longest.</summary>
    public static SendCounts Merge(IEnumerable<SendCounts> parts) => parts.Aggregate(
        new SendCounts(0, 0, 0, 0, 0, 0),
        (sum, part) => new SendCounts(
            sum.Due + part.Due, sum.Sent + part.Sent, sum.Late + part.Late, sum.Dropped + part.Dropped,
            sum.RequestedRate + part.RequestedRate, Math.Max(sum.SendingMs, part.SendingMs)));
}

/// <summary>
/// A <see cref="LatencyDistribution"/> in JSON: the histogram in HdrHistogram's own compressed V2 encoding, base64 (the
/// form HdrHistogram's log files use, readable by its Java, Go and Rust ports too), with the exact min, max and sum.
/// </summary>
public sealed class LatencyDistributionJsonConverter : JsonConverter<LatencyDistribution>
{
    public override LatencyDistribution Read(ref Utf8JsonReader reader, Type typeToConvert, JsonSerializerOptions options)
    {
        var encoded = JsonSerializer.Deserialize<EncodedDistribution>(ref reader, options)
            ?? throw new JsonException("A latency distribution was null.");
        return LatencyDistribution.Decode(encoded.Histogram, encoded.MinUnits, encoded.MaxUnits, encoded.SumUnits);
    }

    public override void Write(Utf8JsonWriter writer, LatencyDistribution value, JsonSerializerOptions options) =>
        JsonSerializer.Serialize(writer, new EncodedDistribution(value.Encode(), value.MinUnits, value.MaxUnits, value.SumUnits), options);

    private sealed record EncodedDistribution(string Histogram, long MinUnits, long MaxUnits, long SumUnits);
}

public static class HistogramCodec
{
    /// <summary>HdrHistogram's compressed V2 encoding, base64.</summary>
    public static string Encode(HistogramBase histogram)
    {
        var buffer = ByteBuffer.Allocate(histogram.GetNeededByteBufferCapacity());
        var length = histogram.EncodeIntoCompressedByteBuffer(buffer);
        // ByteBuffer does not hand out its array: read the encoding back byte by byte (a few KiB, once per run).
        var bytes = new byte[length];
        buffer.Position = 0;
        for (var i = 0; i < length; i++)
        {
            bytes[i] = buffer.Get();
        }

        return Convert.ToBase64String(bytes);
    }

    /// <summary>
    /// The compressed form is a cookie, the payload's length, then zlib. HdrHistogram 2.5.0's own decoder inflates it with
    /// one Stream.Read, which .NET's DeflateStream answers in part past about 8 KB (a million calls over four decades;
    /// fixed upstream after 2.5.0, HdrHistogram.NET #99): inflate it whole here, and let the library decode the payload.
    /// </summary>
    public static HistogramBase Decode(string base64)
    {
        var encoded = Convert.FromBase64String(base64);
        using var zlib = new System.IO.Compression.ZLibStream(new MemoryStream(encoded, 8, encoded.Length - 8), System.IO.Compression.CompressionMode.Decompress);
        using var payload = new MemoryStream();
        zlib.CopyTo(payload);
        return HistogramEncoding.DecodeFromByteBuffer(ByteBuffer.Allocate(payload.ToArray()), LatencyRecorder.HighestUnits);
    }
}
