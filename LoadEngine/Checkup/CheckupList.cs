using LoadEngine.Lessons;
using LoadEngine.Runs;

namespace LoadEngine.Checkup;

/// <summary>
/// The checkup's measurements that are experiments: the lessons' designs, sized to a share of the budget (each run bounded
/// by its seconds as well as its calls), on the user's method. Judged as the lessons are (<see cref="LessonVerdicts"/>):
/// repetitions interleaved, a ratio's median and range, beyond noise only when every repetition agrees and the arms' figures
/// are apart.
/// </summary>
public static class CheckupList
{
    public const int Repetitions = LessonList.DefaultRepetitions;

    /// <summary>Warm-up calls of each run: enough to open the connection and fill the pools, few enough for a slow method.</summary>
    public const int WarmupCalls = 5;

    /// <summary>Calls a run may make at most; its seconds bound it first on any method slower than a few microseconds.</summary>
    private const int MostCalls = 100_000;

    /// <summary>
    /// The stream arm's window of unanswered messages: requests go out without waiting for answers, as the lesson's do, and a
    /// server that answers a stream's messages one at a time drains it within the run's seconds plus 32 of its answers.
    /// </summary>
    private const int StreamWindow = 32;

    private const string MsPerCall = "msPerCall";

    private const string MsPerCallTitle = "time per call (wall time ÷ calls)";

    /// <summary>A channel per call against a reused one, and the client factory against the wrapper: sequential calls, as an app's request makes them.</summary>
    public static LessonDefinition ReuseChannel(double seconds) => LessonList.ReuseChannel with
    {
        Arms =
        [
            Sequential("client-wrapper", "a reused channel (client-wrapper)", "one channel for the app's life, a new client object per call", seconds),
            Sequential("initialized-client", "a channel per call (initialized-client)", "a new channel (and connection) per call, disposed after it", seconds),
            Sequential("factory-client", "the client factory (factory-client)", "AddGrpcClient's client, its handler pooled by the factory", seconds),
        ],
        Claims = [LessonList.ReuseChannel.Claims[0], LessonList.ReuseChannel.Claims[2]],
    };

    /// <summary>One connection against several at <paramref name="inFlight"/> calls in flight, the load past the sweep's knee.</summary>
    public static LessonDefinition Connections(int inFlight, double seconds) => LessonList.StreamLimit with
    {
        Id = "connections",
        Design = $"{inFlight} calls in flight for {seconds:0.#} s on one HTTP/2 connection (EnableMultipleHttp2Connections = false) and on a channel that may " +
            "open more, the load past the capacity sweep's knee. Each arm's figure is its wall time ÷ its calls.",
        Arms =
        [
            InFlight("single-connection", "one connection (single-connection)", $"{inFlight} calls in flight on one HTTP/2 connection", inFlight, seconds),
            InFlight("multiple-connections", "more connections allowed (multiple-connections)", $"{inFlight} calls in flight, EnableMultipleHttp2Connections = true", inFlight, seconds),
        ],
        Claims =
        [
            new("One connection is slower than more connections once calls queue past its stream limit.", MsPerCall, MsPerCallTitle,
                "multiple-connections", "single-connection", ExpectedDirection.Above1, "slower"),
        ],
    };

    /// <summary>One bidirectional stream against sequential unary calls carrying the same requests.</summary>
    public static LessonDefinition Streaming(double seconds) => LessonList.Streaming with
    {
        Design = $"The same requests for {seconds:0.#} s on one bidirectional stream ({StreamWindow} unanswered at most) and as sequential unary calls " +
            "on a reused channel. Each arm's figure is its wall time ÷ its messages.",
        Arms =
        [
            new LessonArm("streaming-call", "one stream (streaming-call)", "requests on one bidirectional stream, sent without waiting for answers")
            {
                Run = new RunPlanInput("streaming-call", MostCalls, StreamWindow, IncludeStatuses: false) { Warmup = WarmupCalls, Duration = seconds },
            },
            Sequential("client-wrapper", "one unary call at a time (client-wrapper)", "sequential unary calls on a reused channel", seconds),
        ],
        Claims =
        [
            new("Many unary calls are slower than one stream carrying the same messages.", MsPerCall, "time per message (wall time ÷ messages)",
                "streaming-call", "client-wrapper", ExpectedDirection.Above1, "slower"),
        ],
    };

    /// <summary>gzip against none on the user's own request, its bytes counted at the client's sockets.</summary>
    public static LessonDefinition Compression { get; } = new(
        "compression",
        7,
        "Compress the requests",
        "gzip makes a compressible request smaller on the wire; for a small or random one it saves nothing and costs CPU.",
        "https://learn.microsoft.com/aspnet/core/grpc/configuration#call-compression",
        "Your request, sent sequentially on two channels of one connection each, one with gzip (grpc-internal-encoding-request: gzip) and one without, " +
            "their calls alternating; bytes written and read are counted at each channel's socket, headers and framing included.",
        "Compare the bytes each call sent, then the time per call.",
        "gzip replaces repeated text with references to it; protobuf is already compact, so only requests with repeated strings or zeros shrink.",
        "A request of a few dozen bytes, or one of random bytes, does not shrink: gzip's own header and the grpc-encoding header then cost more than they save.",
        [
            new LessonArm("gzip", "the request compressed with gzip", "grpc-internal-encoding-request: gzip on every call") { AnyTransport = true },
            new LessonArm("none", "the request uncompressed", "no compression") { AnyTransport = true },
        ],
        [
            new("Uncompressed, the request is larger on the wire.", "bytesSentPerCall", "bytes sent per call", "gzip", "none", ExpectedDirection.Above1, "larger"),
            new("Compressing costs about nothing in time per call.", "p50Ms", "median time per call", "none", "gzip", ExpectedDirection.Near1, "slower"),
        ])
    {
        Probe = typeof(CompressionProbe),
    };

    /// <summary>
    /// <paramref name="lesson"/> within this host's limits: a run's most calls, warm-up and seconds lowered to what the host
    /// allows. The checkup's runs are bounded by their seconds; the calls are only a ceiling, which must not make an operator's
    /// lower limit refuse the measurement.
    /// </summary>
    public static LessonDefinition Within(LessonDefinition lesson, PlanLimits limits) => lesson with
    {
        Arms =
        [
            .. lesson.Arms.Select(arm => arm.Run is not { } run ? arm : arm with
            {
                Run = run with
                {
                    Count = run.Count is { } count ? Math.Min(count, limits.MaxCount) : null,
                    Warmup = run.Warmup is { } warmup ? Math.Min(warmup, limits.MaxWarmup) : null,
                    Duration = run.Duration is { } duration ? Math.Min(duration, limits.MaxRunSeconds) : null,
                },
            }),
        ],
    };

    private static LessonArm Sequential(string strategy, string label, string setup, double seconds) =>
        new(strategy, label, $"{strategy}: {setup}") { Run = new RunPlanInput(strategy, MostCalls, IncludeStatuses: false) { Warmup = WarmupCalls, Duration = seconds } };

    private static LessonArm InFlight(string strategy, string label, string setup, int inFlight, double seconds) =>
        new(strategy, label, $"{strategy}: {setup}")
        {
            Run = new RunPlanInput(strategy, null, inFlight, IncludeStatuses: false) { Warmup = Math.Max(WarmupCalls, inFlight), Duration = seconds },
        };
}
