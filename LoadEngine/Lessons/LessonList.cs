using LoadEngine.Protocols;
using LoadEngine.Runs;

namespace LoadEngine.Lessons;

/// <summary>
/// The chapter's five lessons, and gRPC against REST, as experiments: each names the arms it compares, the settings that
/// make the effect exist, and what it claims. This one list drives the API, the page's buttons, the CLI's --lessons and
/// the OpenAPI text. The settings are the lesson's design, chosen from why the effect happens, never tuned until it agrees.
/// </summary>
public static class LessonList
{
    public const int DefaultRepetitions = 3;
    public const int MaxRepetitions = 10;

    private const string Guide = "https://learn.microsoft.com/aspnet/core/grpc/performance";

    public static LessonDefinition ReuseChannel { get; } = new(
        "reuse-channel",
        1,
        "Reuse the channel",
        "Reuse the channel; reusing the client object does not matter.",
        $"{Guide}#reuse-grpc-channels",
        "1 000 sequential calls on each chapter strategy over h2c (a reused channel with a new client per call, a new channel per call, the client factory), " +
        "and 200 calls of one ≈ 2.4 kB record over TLS with a kept channel and with a new channel per call. 100 warm-up calls (20 over TLS) apart.",
        "Compare the bars of a channel per call with the reused channel's, on h2c and on TLS; and the factory's bar with the wrapper's.",
        "A new channel means a new TCP connection and an HTTP/2 handshake for every call, and over TLS a TLS handshake too: round trips and CPU " +
        "that a reused channel pays once. A client object is only a thin wrapper over its channel, so making one per call costs next to nothing.",
        "On loopback a connection costs well under a millisecond and there is no network round trip, so the penalty is smaller than on a real network; " +
        "over TLS it is larger, because the handshake's cryptography costs CPU even on loopback.",
        [
            StrategyArm("client-wrapper", "a reused channel (client-wrapper)", "client-wrapper: one channel for the app's life, a new client object per call", 1000, 100),
            StrategyArm("initialized-client", "a channel per call (initialized-client)", "initialized-client: a new channel (and connection) per call, disposed after it", 1000, 100),
            StrategyArm("factory-client", "the client factory (factory-client)", "factory-client: AddGrpcClient's client, its handler pooled by the factory", 1000, 100),
            WorkloadArm("tls-kept", "a reused channel over TLS", "big-dto on gRPC · HTTP/2 · TLS, one channel for the run", "big-dto", "grpc-h2-tls", 200, 20, ConnectionUse.Kept),
            WorkloadArm("tls-new", "a channel per call over TLS", "big-dto on gRPC · HTTP/2 · TLS, a new channel (connection and TLS handshake) per call", "big-dto", "grpc-h2-tls", 200, 20, ConnectionUse.NewPerCall),
        ],
        [
            new("A channel per call is slower than a reused channel (h2c).", "p50Ms", "median time per call", "client-wrapper", "initialized-client", ExpectedDirection.Above1, "slower"),
            new("Over TLS a channel per call is slower still.", "p50Ms", "median time per call", "tls-kept", "tls-new", ExpectedDirection.Above1, "slower"),
            new("Reusing the client object does not matter: the factory's client costs about what the wrapper's does.", "p50Ms", "median time per call", "client-wrapper", "factory-client", ExpectedDirection.Near1, "slower"),
        ])
    {
        OnTarget = "On your method the three strategy arms make their 1 000 sequential calls of it with your data; the TLS arms load the built-in service's " +
            "own workload and do not run (an https:// target's strategy arms are over TLS already, handshake and all).",
    };

    public static LessonDefinition StreamLimit { get; } = new(
        "stream-limit",
        2,
        "About 100 streams per connection",
        "An HTTP/2 connection carries about 100 concurrent streams; past that, calls queue unless the client may open more connections (EnableMultipleHttp2Connections).",
        $"{Guide}#connection-concurrency",
        "1 000 calls started at once, each answered after a server delay of 100 ms, on one connection (EnableMultipleHttp2Connections = false) and with more " +
        "connections allowed. 100 warm-up calls apart. Without a delay the calls end faster than they queue, and there is nothing to see.",
        "Compare the wall times: one connection runs the calls in waves of 100; more connections run them nearly all at once. The connection counts prove it.",
        "The service allows 100 concurrent streams per connection (Kestrel's MaxStreamsPerConnection). The client queues calls beyond that on the one " +
        "connection it may use, so 1 000 calls of 100 ms take about ten waves; allowed more connections, it opens another whenever one is full.",
        "When the calls are too short to overlap (little or no server delay), the queue never forms and one connection can even be faster, because it skips the connection setup.",
        [
            StrategyArm("single-connection", "one connection (single-connection)", "single-connection: 1 000 calls in flight at once, 100 ms server delay", 1000, 100, delayMs: 100),
            StrategyArm("multiple-connections", "more connections allowed (multiple-connections)", "multiple-connections: the same, with EnableMultipleHttp2Connections = true", 1000, 100, delayMs: 100),
        ],
        [
            new("One connection is slower than more connections once calls queue past its stream limit.", "wallTimeMs", "wall time", "multiple-connections", "single-connection", ExpectedDirection.Above1, "slower"),
            new("Allowed more connections, the client opens more than one.", "connectionsUsed", "connections used", "single-connection", "multiple-connections", ExpectedDirection.Above1, "more"),
        ])
    {
        OnTarget = "On your method there is no server delay: each call lasts as long as your service takes to answer, so a fast method may never queue " +
            "past one connection's streams, and the verdict then says the difference is within the run-to-run spread or goes the other way. Connections are " +
            "counted from the built-in service's answers; on another service they are not measured.",
    };

    public static LessonDefinition KeepAlive { get; } = new(
        "keep-alive",
        3,
        "Keep-alive pings",
        "Keep-alive pings keep an idle connection ready, so the first call after a pause pays no new connection and handshake.",
        KeepAliveLesson.Link,
        $"{KeepAliveLesson.Pairs} channels pinged every {KeepAliveLesson.PingDelay.TotalSeconds:0} s and {KeepAliveLesson.Pairs} not, one connection each, over TLS " +
        $"and over h2c, all warm; then all stay idle for {KeepAliveLesson.DefaultPauseMs / 1000} s, longer than the service's idle timeout " +
        "(Kestrel:Limits:KeepAliveTimeout, 5 s in its appsettings.json, standing in for a proxy's or load balancer's), and each makes one call. " +
        "An arm's figure is the median of its channels' calls.",
        "Compare the first call after the pause: the unpinged channels' connections were closed while idle, so their calls open new ones, over TLS with a new handshake.",
        "Kestrel closes a connection that has been idle longer than its KeepAliveTimeout, but counts a received PING as activity; a channel whose " +
        "handler sends pings (KeepAlivePingDelay, KeepAlivePingPolicy.Always) keeps its connection, and its next call goes straight out.",
        "On loopback a new h2c connection costs well under a millisecond, about what any call costs after seconds of idleness, so over h2c the difference can " +
        "vanish into the spread; a TLS handshake costs more. If the service's idle timeout is longer than the pause, no connection is closed and the calls cost the same.",
        [
            new LessonArm("with-pings-tls", "a pinged channel over TLS", "KeepAlivePingDelay 1 s, KeepAlivePingPolicy.Always, one connection each, TLS") { Contender = ContenderList.Find("grpc-h2-tls") },
            new LessonArm("without-pings-tls", "a channel without pings over TLS", "no keep-alive pings, one connection each, TLS") { Contender = ContenderList.Find("grpc-h2-tls") },
            new LessonArm("with-pings", "a pinged channel over h2c", "KeepAlivePingDelay 1 s, KeepAlivePingPolicy.Always, one connection each, h2c"),
            new LessonArm("without-pings", "a channel without pings over h2c", "no keep-alive pings, one connection each, h2c"),
        ],
        [
            new("Over TLS the first call after an idle pause is slower without keep-alive pings: it pays a new connection and handshake.", "afterPauseMs", "time of the first call after the pause", "with-pings-tls", "without-pings-tls", ExpectedDirection.Above1, "slower"),
            new("Over h2c it is slower too, by the cost of a new connection.", "afterPauseMs", "time of the first call after the pause", "with-pings", "without-pings", ExpectedDirection.Above1, "slower"),
        ])
    {
        Probe = typeof(KeepAliveLesson),
        OnTarget = "On your method the channels call it at the target's own address: over TLS when it is https://, over h2c when it is http:// (one pair " +
            "of arms, the other does not run). A new connection is counted by each channel's own handler, and whether an idle one is closed is up to your " +
            "service and whatever stands before it: if its idle timeout is longer than the pause, both kinds of channel cost the same.",
    };

    public static LessonDefinition Streaming { get; } = new(
        "streaming",
        4,
        "Stream many messages",
        "For many messages, one bidirectional stream beats many unary calls by a wide margin.",
        $"{Guide}#streaming",
        "2 000 messages each way on one bidirectional stream (streaming-call, the chapter's way: every request sent without waiting for the answers), " +
        "against 2 000 sequential unary calls on a reused channel (client-wrapper). 200 warm-up messages apart.",
        "Compare the wall times for the same number of messages.",
        "Each unary call is a new HTTP/2 stream with its own headers, trailers and a full round trip before the next; on one stream the messages are " +
        "only length-prefixed frames, and requests go out without waiting for each answer.",
        "If the stream had to wait for each answer before the next request (strict ping-pong), it would save only the per-call headers, and the margin would be smaller.",
        [
            StrategyArm("streaming-call", "one stream (streaming-call)", "streaming-call: one bidirectional stream carrying 2 000 requests and answers", 2000, 200),
            StrategyArm("client-wrapper", "one unary call at a time (client-wrapper)", "client-wrapper: 2 000 sequential unary calls on a reused channel", 2000, 200),
        ],
        [
            new("Many unary calls are slower than one stream carrying the same messages.", "wallTimeMs", "wall time", "streaming-call", "client-wrapper", ExpectedDirection.Above1, "slower"),
        ])
    {
        OnTarget = "On your method the unary arm makes its 2 000 calls of it; the stream arm carries the same requests on a bidirectional method of the " +
            "target taking and answering the same types (the one named streamCall, or the first found); a target without one cannot run this lesson.",
    };

    public static LessonDefinition BinaryPayloads { get; } = new(
        "binary-payloads",
        5,
        "Binary payloads",
        "bytes fields carry binary data compactly; wrapping without copying is faster but unsafe if the array changes afterwards.",
        PayloadLesson.Link,
        $"One real answer with two {BinaryPayloadBytes / 1024} KiB bytes fields, sized as protobuf with bytes fields and with the same data as base64 text; " +
        "then UnsafeByteOperations.UnsafeWrap against ByteString.CopyFrom on the same array, timed in the gateway's process (median of 5 batches).",
        "Compare the sizes, then the time to put the array into a message with and without a copy.",
        "A bytes field is the raw bytes behind a length; text must encode them, and base64 spends 4 characters on every 3 bytes. CopyFrom copies the whole " +
        "array into a new one; UnsafeWrap only points at it, so it costs the same for any size, and the message changes if the array does.",
        "The size ratio holds everywhere. The copy's cost grows with the payload: at a few bytes both are a few nanoseconds.",
        [
            new LessonArm("bytes", "protobuf with bytes fields", "the answer as the service sent it"),
            new LessonArm("base64-text", "the same data as base64 text", "the same message with string fields carrying base64"),
            new LessonArm("unsafe-wrap", "UnsafeByteOperations.UnsafeWrap (no copy)", "wrap the array without copying it"),
            new LessonArm("copy-from", "ByteString.CopyFrom (copy)", "copy the array into a new ByteString"),
        ],
        [
            new("The same data as base64 text is larger than in bytes fields.", "messageBytes", "message size", "bytes", "base64-text", ExpectedDirection.Above1, "larger"),
            new("Copying into a ByteString is slower than wrapping without a copy.", "nanosecondsPerOperation", "time per operation", "unsafe-wrap", "copy-from", ExpectedDirection.Above1, "slower"),
        ])
    {
        Probe = typeof(PayloadLesson),
        NotOnTargets = "The binary-payloads lesson measures the built-in service's answer with two 64 KiB bytes fields and copies made in this process, " +
            "which another method need not carry, so it runs on the built-in service only.",
    };

    public static LessonDefinition GrpcVsRest { get; } = new(
        "grpc-vs-rest",
        6,
        "gRPC against REST",
        "Over the same transport security, gRPC with protobuf answers a large message faster than REST with JSON, and in fewer bytes; for a small message the two cost about the same.",
        "https://learn.microsoft.com/aspnet/core/grpc/comparison",
        $"{BigListCalls:#,0} sequential calls fetching a list of 1 000 books (the 2019 study's big-list; it made 1 000 calls), then 1 000 fetching one book (small-mixed), " +
        "over TLS on both sides as the study ran: gRPC over HTTP/2 against REST with System.Text.Json over HTTP/1.1, each on a kept channel or HttpClient. " +
        "100 warm-up calls apart; every answer checked. Bytes received are counted at the client's sockets: encrypted, headers and framing included.",
        "Compare the median time per call of the two arms fetching 1 000 books (the 2019 study measured 1.9×: gRPC 2 813 ms, System.Text.Json 5 338 ms for 1 000 calls), " +
        "with the bytes each received per call beside it; then the two arms fetching one book, which the lesson expects to cost about the same. The Protocols part below compares every contender and workload.",
        "JSON writes every field's name in every book and every number as text; protobuf writes a field number and a binary value, so 1 000 books are about 65 kB against " +
        "134 kB: half the bytes to encrypt, send, read and parse, and gRPC's generated code binds fields by number where System.Text.Json matches names. One book is 65 B " +
        "against 133 B, and a call is then mostly HTTP, TLS and socket work that both pay, so the serializer decides little. Both sides do the same work on the service.",
        "On loopback there is no network to pay for the extra bytes, only the CPU to encrypt, copy and parse them, and on a busy machine other processes' load can swamp a " +
        "difference of a millisecond. For one book, REST over HTTP/1.1 can even be faster than gRPC, whose HTTP/2 streams, header compression and flow control cost more " +
        "per call than HTTP/1.1's; the 2019 study found gRPC 1.9× faster on one book too, on ASP.NET Core 3.0.",
        [
            WorkloadArm("grpc-big-list", "gRPC fetching 1 000 books", "big-list on gRPC · HTTP/2 · TLS", "big-list", "grpc-h2-tls", BigListCalls, 100),
            WorkloadArm("rest-big-list", "REST with System.Text.Json fetching 1 000 books", "big-list on REST · System.Text.Json · HTTP/1.1 · TLS", "big-list", "rest-stj-h1-tls", BigListCalls, 100),
            WorkloadArm("grpc-small-mixed", "gRPC fetching one book", "small-mixed on gRPC · HTTP/2 · TLS", "small-mixed", "grpc-h2-tls", 1000, 100),
            WorkloadArm("rest-small-mixed", "REST with System.Text.Json fetching one book", "small-mixed on REST · System.Text.Json · HTTP/1.1 · TLS", "small-mixed", "rest-stj-h1-tls", 1000, 100),
        ],
        [
            new("REST with JSON is slower than gRPC per call when the answer is large (1 000 books).", "p50Ms", "median time per call", "grpc-big-list", "rest-big-list", ExpectedDirection.Above1, "slower"),
            new("REST's JSON answer is larger on the wire than gRPC's protobuf.", "bytesReceivedPerCall", "bytes received per call", "grpc-big-list", "rest-big-list", ExpectedDirection.Above1, "larger"),
            new("For a small answer (one book) the two cost about the same per call.", "p50Ms", "median time per call", "grpc-small-mixed", "rest-small-mixed", ExpectedDirection.Near1, "slower"),
        ])
    {
        NotOnTargets = "The gRPC-against-REST lesson compares the built-in service's gRPC and REST endpoints serving the same books, and a target " +
            "serves gRPC only, so it runs on the built-in service only.",
    };

    // Enough calls that each arm's median is steady, few enough that three repetitions of the four arms end in well under a minute: a big-list call
    // took about 1 ms on a 2-core machine with the service and the client each on a core of their own, 3–5 ms under other processes' load.
    private const int BigListCalls = 300;

    public static IReadOnlyList<LessonDefinition> All { get; } = [ReuseChannel, StreamLimit, KeepAlive, Streaming, BinaryPayloads, GrpcVsRest];

    public static IReadOnlyList<string> Ids { get; } = [.. All.Select(lesson => lesson.Id)];

    public static LessonDefinition? Find(string? id) => All.FirstOrDefault(lesson => lesson.Id == id);

    public const int BinaryPayloadBytes = 65_536;

    private static LessonArm StrategyArm(string strategy, string label, string setup, int count, int warmup, int delayMs = 0) =>
        new(strategy, label, setup) { Run = new RunPlanInput(strategy, count, IncludeStatuses: false) { Warmup = warmup, DelayMs = delayMs } };

    private static LessonArm WorkloadArm(string name, string label, string setup, string workload, string contenderName, int count, int warmup, ConnectionUse? connection = null)
    {
        var contender = ContenderList.Find(contenderName) ?? throw new InvalidOperationException($"No contender {contenderName}.");
        return new LessonArm(name, label, setup)
        {
            Contender = contender,
            Run = contender.Into(new RunPlanInput(null, count, IncludeStatuses: false) { Warmup = warmup, Workload = workload, Connection = connection }),
        };
    }
}
