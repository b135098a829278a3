using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using System.Reflection;
using System.Text.RegularExpressions;
using LoadEngine;
using LoadEngine.Clients;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using LoadEngine.Thresholds;
using LoadTest.Output;
using Level = Microsoft.Extensions.Logging.LogLevel;

namespace LoadTest;

/// <summary>
/// Every option of the command line, each read into its type as it is parsed. The plan's options carry the run API's field
/// names (--delay-ms for delayMs), and a value that does not read gets the sentence the gateway gives for that field.
/// </summary>
public sealed partial class LoadTestCommand
{
    /// <summary>How the user started it: <c>loadtest</c> when installed as a .NET tool, the repository's <c>./loadtest</c> script otherwise.</summary>
    public static string Name { get; } = Path.GetFileName(Environment.ProcessPath) == "loadtest" ? "loadtest" : "./loadtest";

    public const string AllStrategies = "all";

    public const string AllContenders = "all";

    private static readonly Func<string, (LoadKind? Value, string? Problem)> LoadReader = Wire<LoadKind>("load");

    private static readonly Func<string, (int? Value, string? Problem)> MaxInFlightReader = Whole("max-in-flight", 1, LoadTestSettings.MaxInFlightLimit, inRange: true);

    private static readonly string Percentiles = string.Join(',', RunPlan.DefaultPercentiles.Select(p => p.ToString(CultureInfo.InvariantCulture)));

    public Option<string> Target { get; } = Text<string>("--target", "url",
        "The service to load: an absolute http:// or https:// address with no path, e.g. http://127.0.0.1:5000 (PerformanceService unless --call names " +
        "another method). run also takes it as its argument, as ghz does: host:port is TLS unless --insecure, or an http:// or https:// address.");

    /// <summary>ghz's positional address: <c>loadtest --call pkg.Service/Method -d '{}' 127.0.0.1:5000 --insecure</c>.</summary>
    public Argument<string> Host { get; } = Optional("host",
        "The address to load, as ghz takes it: host:port (TLS unless --insecure) or an http:// or https:// address; the same as --target.");

    public Option<bool> Insecure { get; } = Flag("--insecure",
        "ghz's plaintext: a host:port argument is called over cleartext HTTP/2 (http://) instead of TLS.");

    public Option<string> Call { get; } = Text<string>("--call", "method",
        "The method to load, package.Service/Method (or package.Service.Method), of the target described by --proto, --protoset or server reflection.");

    public Option<string> StreamCall { get; } = Text<string>("--stream-call", "method",
        "lessons on --call: the bidirectional method of the same request and answer types the streaming lesson carries the calls on (default: the first the target has).");

    public Option<string[]> Proto { get; } = Text<string[]>("--proto", "file",
        "A .proto file that declares --call's service, repeatable; compiled with the protoc Grpc.Tools ships (well-known types included).");

    public Option<string[]> ImportPath { get; } = Text<string[]>("--import-path", "dir",
        "A folder --proto's imports are found in, repeatable (each --proto file's own folder is searched too).");

    public Option<string> ImportPaths { get; } = Text<string>("--import-paths", "a,b",
        "ghz's form of --import-path: folders separated by commas.", "-i");

    public Option<string> Protoset { get; } = Text<string>("--protoset", "file",
        "A compiled FileDescriptorSet (protoc --descriptor_set_out --include_imports) instead of --proto; with neither, the target's server reflection.");

    public Option<string> Data { get; } = Text<string>("--data", "json",
        "The request as JSON (proto3 JSON mapping): one object, or an array (a client or bidirectional stream's messages; unary calls take them in turn). " +
        "ghz's templates work in strings, e.g. {{.RequestNumber}}, {{newUUID}}, {{randomInt 1 9}}. @ reads it from stdin.", "-d");

    public Option<string> DataFile { get; } = Text<string>("--data-file", "file", "The request JSON from a file (- for stdin), as --data.", "-D");

    public Option<string[]> Metadata { get; } = Text<string[]>("--metadata", "key: value",
        "Metadata on every call, 'key: value' or ghz's JSON object {\"key\":\"value\"}; repeatable. A key ending in -bin takes its value in base64.", "-m");

    /// <summary>The file's pairs, read as it is parsed.</summary>
    public Option<IReadOnlyList<KeyValuePair<string, string>>?> MetadataFile { get; } = Typed<IReadOnlyList<KeyValuePair<string, string>>?>("--metadata-file", "file",
        "ghz's metadata file: a JSON object of string values, on every call.",
        file => !File.Exists(file) ? (null, $"--metadata-file '{file}' does not exist.")
            : File.ReadAllText(file) is var json && json.TrimStart().StartsWith('{') && TargetConnection.TryParseMetadata(json, "--metadata-file", out var pairs, out _) ? (pairs, null)
            : (null, $"--metadata-file '{file}' must hold a JSON object of string values, e.g. {{\"authorization\":\"Bearer x\"}}."),
        "-M");

    public Option<string> CaCertificate { get; } = Text<string>("--cacert", "pem",
        "https:// only: the CA certificates (PEM) the target's certificate must chain to, instead of the system's.");

    public Option<string> ClientCertificate { get; } = Text<string>("--cert", "pem", "https:// only: the client certificate (PEM) to present, for mutual TLS; with --key.");

    public Option<string> ClientKey { get; } = Text<string>("--key", "pem", "The client certificate's private key (PEM).");

    public Option<string> Authority { get; } = Text<string>("--authority", "name",
        "The :authority (Host) of every call, and the name TLS asks for (SNI) and checks the certificate against; left out, the address's host. " +
        "ghz's --cname (the name TLS checks) is taken for it.", "--cname");

    public Option<bool> InsecureSkipVerify { get; } = Flag("--insecure-skip-verify",
        "https:// only: accept any server certificate, unchecked. Only for a test service; never the default.", "--skipTLS");

    public Option<string> Compression { get; } = Text<string>("--compression", "gzip", "Compress the request messages: gzip.");

    public Option<bool> EnableCompression { get; } = Flag("--enable-compression", "ghz's form of --compression gzip.", "-e");

    public Option<bool> List { get; } = Flag("--list",
        "Print the target's services and methods and exit; with --call, the method's request as a JSON template with every field.");

    public Option<string> Strategy { get; } = new("--strategy")
    {
        Description = $"The client strategy, or all: each in turn, as a suite. One of: {string.Join(", ", StrategyList.Names)}.",
        HelpName = "name|all",
        DefaultValueFactory = _ => AllStrategies,
    };

    public Option<string> Workload { get; } = new("--workload")
    {
        Description = $"The workload of the published gRPC-vs-REST benchmarks to run: {string.Join(", ", WorkloadList.Ids)}. " +
            "Its contender is --protocol (with --serializer, --http-version, --security), or --contenders for several in turn.",
        HelpName = "id",
        Required = true,
    };

    public Option<ApiProtocol?> Protocol { get; } = Typed("--protocol", "name", $"The contender's protocol: {WireNames<ApiProtocol>.Listed}.", Wire<ApiProtocol>("protocol"));

    public Option<PayloadSerializer?> Serializer { get; } = Typed("--serializer", "name",
        $"Its serializer: {WireNames<PayloadSerializer>.Listed} (default protobuf for gRPC, system-text-json for REST).", Wire<PayloadSerializer>("serializer"));

    public Option<WireVersion?> HttpVersion { get; } = Typed("--http-version", "version",
        $"Its HTTP version: {WireNames<WireVersion>.Listed} (default 2 for gRPC, 1.1 for REST).", Wire<WireVersion>("httpVersion"));

    public Option<WireSecurity?> Security { get; } = Typed("--security", "mode", $"Its security: {WireNames<WireSecurity>.Listed} (default cleartext).", Wire<WireSecurity>("security"));

    public Option<string> Contenders { get; } = Text<string>("--contenders", "all|list",
        $"Instead of one contender: {AllContenders} (every contender that can run it, in turn, as a suite) or contender names separated by commas, e.g. grpc-h2-cleartext,rest-stj-h1-cleartext. " +
        $"The contenders: {string.Join(", ", ContenderList.Names)}.");

    public Option<long?> FileBytes { get; } = WorkloadSetting(WorkloadParameters.FileBytes, Field<long>("fileBytes", long.TryParse));

    public Option<ConnectionUse?> ConnectionUse { get; } = WorkloadSetting(WorkloadParameters.Connection, Wire<ConnectionUse>("connection"));

    public Option<int?> Clients { get; } = WorkloadSetting(WorkloadParameters.Clients, Field<int>("clients", int.TryParse));

    public Option<BulkReadVariant?> Variant { get; } = WorkloadSetting(WorkloadParameters.Variant, Wire<BulkReadVariant>("variant"));

    public Option<int?> Users { get; } = WorkloadSetting(WorkloadParameters.Users, Field<int>("users", int.TryParse));

    public Option<Uri?> Http1Target { get; } = Typed("--http1-target", "url",
        "The service's cleartext HTTP/1.1 listener (its Protocols:Http1Url, e.g. http://127.0.0.1:5002), for REST over HTTP/1.1 in cleartext.",
        Listener("--http1-target", Uri.UriSchemeHttp, "http://127.0.0.1:5002"));

    public Option<Uri?> TlsTarget { get; } = Typed("--tls-target", "url",
        "The service's TLS listener (its Protocols:TlsUrl, e.g. https://127.0.0.1:5001), for every contender with --security tls.",
        Listener("--tls-target", Uri.UriSchemeHttps, "https://127.0.0.1:5001"));

    /// <summary>The certificate's full path.</summary>
    public Option<string?> TrustCertificate { get; } = Typed<string?>("--trust-certificate", "file",
        "The service's certificate (PEM, e.g. PerformanceService/data/service-certificate.pem): the only one TLS contenders trust.",
        text => text.Length > 0 && File.Exists(Path.GetFullPath(text)) ? (Path.GetFullPath(text), null)
            : (null, $"trust-certificate was '{text}'; no such file. It names the service's service-certificate.pem (in PerformanceService/data by default)."));

    public Option<int?> Count { get; } = Typed("--count", "calls",
        $"Measured calls (stream messages for streaming-call), 1 to {PlanLimits.Defaults.MaxCount}. A run needs a count, a duration, or both (whichever ends first); " +
        "a workload run left without either makes its workload's own count of calls.", Field<int>("count", int.TryParse), "-n");

    public Option<TimeSpan?> Duration { get; } = Typed("--duration", "duration",
        $"How long the measured phase lasts, as ghz writes it (10s, 1m30s, 500ms) or in seconds, {RunPlanRules.MinDurationSeconds.ToString(CultureInfo.InvariantCulture)} s " +
        $"to {PlanLimits.Defaults.MaxRunSeconds} s.", Span("duration", RunPlanRules.MinDurationSeconds, PlanLimits.Defaults.MaxRunSeconds), "-z");

    public Option<LoadKind?> Load { get; } = Typed("--load", "shape",
        $"The load shape: {RunPlanRules.LoadNames}. Left out, each strategy's own: " +
        string.Join(", ", StrategyList.All.Select(strategy => $"{strategy.Info.Name} {RunPlanRules.Name(strategy.Info.DefaultLoad)}")) + ".", LoadReader);

    public Option<int?> Concurrency { get; } = Typed("--concurrency", "calls",
        "Closed load: calls in flight at once (left out, all calls at once, at most --max-in-flight); given without --load, a strategy that calls one at a time runs " +
        "the closed load. Open and ramping: the most in flight (default 1000); a call due beyond it waits, then is dropped.",
        (text, result) => Whole("concurrency", 1, Sibling(result, "--max-in-flight", MaxInFlightReader) ?? PlanLimits.Defaults.MaxConcurrency)(text), "-c");

    // A rate that does not read is refused with the range of the load it is for: left out, the load a rate alone implies.
    public Option<double?> Rate { get; } = Typed<double?>("--rate", "per-second",
        "Open load: calls started per second, on a schedule; given without --load (and without --stages), the load is open. Ramping: the rate it starts from (default 0).",
        (text, result) => double.TryParse(text, NumberStyles.AllowDecimalPoint | NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var rate) ? (rate, null)
            : (null, RunPlanRules.RateRefused(text, Sibling(result, "--load", LoadReader) ?? LoadKind.Open)),
        "--rps");

    /// <summary>ghz's --connections, as the strategy that opens them: one connection, or several (as many as the calls in flight need).</summary>
    public Option<int?> Connections { get; } = Typed<int?>("--connections", "n",
        "ghz's connection count, as the strategy it names: 1 is single-connection; more is multiple-connections, which opens a connection when " +
        "one's ~100 streams are busy, so the count follows the calls in flight. In place of --strategy.",
        text => int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var connections) && connections >= 1 ? (connections, null)
            : (null, Must("connections", text, "a whole number from 1 (single-connection; more is multiple-connections)")));

    public Option<IReadOnlyList<RampStage>?> Stages { get; } = Typed<IReadOnlyList<RampStage>?>("--stages", "list",
        "Ramping load: seconds:rate pairs, each moving the rate linearly to its target, e.g. \"10:5000,20:5000\".",
        text => RunPlanText.TryStages(text, out var stages, out var error) ? (stages, null) : (null, error));

    /// <summary>The plan's settings that describe themselves (--warmup, --delay-ms, --payload-bytes), each read by its kind: a new one needs no line here.</summary>
    public IReadOnlyDictionary<PlanSetting, Option> Settings { get; } = DescribedSettings.All(PlanLimits.Defaults).ToDictionary(setting => setting, Setting);

    public Option<IReadOnlyList<double>?> PercentileList { get; } = Typed<IReadOnlyList<double>?>("--percentiles", "list",
        $"The latency percentiles to report (default {Percentiles}); any a threshold judges is added.",
        text => RunPlanText.TryPercentiles(text, out var percentiles, out var error) ? (percentiles, null) : (null, error));

    public Option<string[]> Thresholds { get; } = Text<string[]>("--threshold", "condition",
        $"A pass/fail condition, repeatable, e.g. \"p99 < 5ms\" or \"errorRate < 1%\". {Threshold.AcceptedForm}");

    public Option<TimeSpan?> CallTimeout { get; } = Typed("--call-timeout", "duration",
        $"Deadline of each call, as ghz's --timeout writes it (20s, 500ms) or in seconds, {LoadTestSettings.MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} s to " +
        $"{LoadTestSettings.MaxCallTimeoutSeconds} s (default 10 s); also the longest a stream may stay silent.",
        Span("call-timeout", LoadTestSettings.MinTimeoutSeconds, LoadTestSettings.MaxCallTimeoutSeconds), "--timeout", "-t");

    public Option<TimeSpan?> ConnectTimeout { get; } = Typed("--connect-timeout", "seconds",
        $"A connection not made within this many seconds fails the call, {LoadTestSettings.MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} to {LoadTestSettings.MaxConnectTimeoutSeconds} (default 3).",
        Span("connect-timeout", LoadTestSettings.MinTimeoutSeconds, LoadTestSettings.MaxConnectTimeoutSeconds));

    public Option<TimeSpan?> SilenceSeconds { get; } = Typed("--silence-seconds", "seconds",
        $"A run fails when calls are in flight and none ends for this many seconds (plus any --delay-ms), {LoadTestSettings.MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} " +
        $"to {LoadTestSettings.MaxCallTimeoutSeconds} (default 5): a hung service ends the run instead of holding it.",
        Span("silence-seconds", LoadTestSettings.MinTimeoutSeconds, LoadTestSettings.MaxCallTimeoutSeconds));

    public Option<TimeSpan?> ConnectFailureSeconds { get; } = Typed("--connect-failure-seconds", "seconds",
        $"After calls have succeeded, how long calls whose connections time out or are reset may go on with none succeeding before the service counts as gone, " +
        $"{LoadTestSettings.MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} to {LoadTestSettings.MaxCallTimeoutSeconds} (default 30): a connection storm is counted, not taken for a dead service.",
        Span("connect-failure-seconds", LoadTestSettings.MinTimeoutSeconds, LoadTestSettings.MaxCallTimeoutSeconds));

    public Option<int?> MaxInFlight { get; } = Typed("--max-in-flight", "calls",
        $"Most calls in flight at once, 1 to {LoadTestSettings.MaxInFlightLimit} (default {PlanLimits.Defaults.MaxConcurrency}): caps --concurrency.",
        MaxInFlightReader);

    public Option<string?> Json { get; } = Typed("--json", "file",
        "Write the run (for a suite, the suite and its runs) to this file, in the JSON shape of the gateway's run API.", OutputFile("json"));

    public Option<string?> Report { get; } = Typed("--report", "file",
        "Write an HTML report of the run (or the suite) to this file: one self-contained page that opens offline, as the gateway's report.", OutputFile("report"));

    public Option<string?> Csv { get; } = Typed("--csv", "file",
        "Write the runs to this file as CSV: a header, then one row per run with its figures (calls, failures, calls/s, latency percentiles, late and dropped sends).",
        OutputFile("csv"));

    public Option<ResultFormat?> Format { get; } = Typed("--format", "format",
        $"ghz's output format: {string.Join(", ", ResultFormats.Names)}. With -o the file is written in it (as --json, --report or --csv would); without, stdout holds " +
        "only it, and the progress and summary go to stderr.",
        Named<ResultFormat>("format"), "-O");

    public Option<string?> Output { get; } = Typed("--output", "file", "ghz's output path: the file --format is written to.", OutputFile("output"), "-o");

    public Option<bool> Plain { get; } = Flag("--plain",
        "Plain progress lines, at most one a second, even on a terminal (the default when output is redirected).");

    public Option<bool> Quiet { get; } = Flag("--quiet", "No progress; only the summary.");

    public Argument<string> LessonIds { get; } = Optional("ids",
        $"The lessons to run, comma-separated ({string.Join(", ", LoadEngine.Lessons.LessonList.Ids)}); left out, all of them.");

    public Option<int?> Repetitions { get; } = Typed("--repetitions", "n",
        $"Repetitions of each experiment, 1 to {LoadEngine.Lessons.LessonList.MaxRepetitions} (default {LoadEngine.Lessons.LessonList.DefaultRepetitions}).",
        Whole("repetitions", 1, LoadEngine.Lessons.LessonList.MaxRepetitions, inRange: true));

    public Option<TimeSpan?> Budget { get; } = Typed("--budget", "duration",
        $"checkup: the time every measurement shares, as ghz writes it (2m, 90s) or in seconds, {LoadEngine.Checkup.CheckupPlan.MinBudgetSeconds} s to " +
        $"{LoadEngine.Checkup.CheckupPlan.MaxBudgetSeconds} s (default {LoadEngine.Checkup.CheckupPlan.DefaultBudgetSeconds} s: every measurement with its repetitions and the keep-alive pause fit on loopback).",
        Span("budget", LoadEngine.Checkup.CheckupPlan.MinBudgetSeconds, (int)LoadEngine.Checkup.CheckupPlan.MaxBudgetSeconds));

    public Option<int?> InFlight { get; } = Typed("--in-flight", "calls",
        $"checkup: the calls your client keeps in flight, 1 to {PlanLimits.Defaults.MaxConcurrency} (default {LoadEngine.Checkup.CheckupPlan.DefaultInFlight}): the savings are said at this load.",
        Whole("in-flight", 1, PlanLimits.Defaults.MaxConcurrency, inRange: true));

    public Option<Guid?> RunId { get; } = Typed<Guid?>("--run-id", "id", "The distributed run's id, as POST /api/runs answered it.",
        text => Guid.TryParse(text, out var id) ? (id, null) : (null, $"--run-id was '{text}'; it must be a run id (a GUID such as 3f2504e0-4f89-11d3-9a0c-0305e82c3301)."));

    public Option<AgentShard?> Shard { get; } = Typed<AgentShard?>("--shard", "index/count",
        "This agent's shard, the index from 0 (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX) and the run's agent count, e.g. 0/4.",
        text => AgentShard.TryParse(text, out var shard) ? (shard, null) : (null, $"--shard was '{text}'; it must be index/count with the index from 0 and below the count, e.g. 0/4."));

    public Option<string> HistoryProvider { get; } = Text<string>("--history-provider", "name",
        "Where the shared history is, Sqlite or Postgres (default: the environment's History__Provider, else Sqlite).");

    public Option<string> History { get; } = Text<string>("--history", "connection",
        "The SQLite file or the PostgreSQL connection string (default: the environment's ConnectionStrings__History, else History__DatabasePath).");

    public Option<Level?> LogLevel { get; } = Typed("--log-level", "level",
        $"The engine's log lines on stderr from this level up: {string.Join(", ", LoadTestSettings.LogLevelNames)} (default error).",
        Named<Level>("log-level"));

    /// <summary>What describes the method a run calls and its request (ghz's names).</summary>
    public Option[] TargetOptions => [Call, Proto, ImportPath, ImportPaths, Protoset, Data, DataFile, List];

    /// <summary>How every call reaches the target (ghz's names): TLS, :authority, metadata, compression. An agent takes them from its own command line.</summary>
    public Option[] ConnectionOptions => [CaCertificate, ClientCertificate, ClientKey, Authority, InsecureSkipVerify, Metadata, MetadataFile, Compression, EnableCompression];

    public Command Run { get; }

    public Command Compare { get; }

    public Command Lessons { get; }

    public Command Agent { get; }

    public Command Checkup { get; }

    public RootCommand Root { get; }

    /// <summary>Every option of every command, each once.</summary>
    public IReadOnlyList<Option> AllOptions => [.. Root.Options.Concat(Root.Subcommands.SelectMany(command => command.Options)).Distinct()];

    public LoadTestCommand()
    {
        // Each command lists --target, then its own options, the plan's, the listeners, and how long to wait and what to show.
        Option[] connection = [CallTimeout, ConnectTimeout, SilenceSeconds, ConnectFailureSeconds, MaxInFlight, Plain, Quiet, LogLevel];
        Option[] listeners = [Http1Target, TlsTarget, TrustCertificate];
        Option[] plan = [Count, Duration, Load, Concurrency, Rate, Stages, .. Settings.Values, PercentileList, Thresholds, Json, Report, Csv, Format, Output];
        Run = Command("run", "Load-tests a gRPC service in-process with the gateway's run engine: PerformanceService, or any method --call names. " +
            "One strategy, or all in turn. " + RunExitCodes,
            [Target, Insecure, Strategy, Connections, .. TargetOptions, .. ConnectionOptions, .. plan, .. connection]);
        Run.Arguments.Add(Host);
        Compare = Command("compare",
            "Runs a workload of the published gRPC-vs-REST benchmarks on one contender (a protocol, serializer, HTTP version and security), or on several in turn. " +
            RunExitCodes,
            [Target, Workload, Protocol, Serializer, HttpVersion, Security, Contenders, FileBytes, ConnectionUse, Clients, Variant, Users, .. plan, .. listeners, .. connection]);
        Lessons = Command("lessons", "Runs the lessons' experiments, each with its own design, after a warm-up, and judges each lesson's claims. " +
            "Exit codes: 0 every headline verdict agrees and is beyond noise; 99 one does not; 1 an experiment did not complete; 105 interrupted; 2 a usage error.",
            [Target, Repetitions, Json, .. TargetOptions.Where(option => option != List), StreamCall, .. ConnectionOptions, .. listeners, .. connection]);
        Lessons.Arguments.Add(LessonIds);
        Checkup = Command("checkup",
            "Checks your client against your method: a channel per call against a reused one, the client factory, the method's capacity (calls in flight " +
            "doubled until calls per second stop growing), one connection against several past it, keep-alive pings after an idle pause, one stream " +
            "against unary calls, gzip and a deadline; then prescribes what to change, ordered by the measured saving, with the C# to paste. " +
            "Exit codes: 0 it completed; 1 it did not; 105 interrupted; 2 a usage error.",
            [Target, Insecure, .. TargetOptions.Where(option => option != List), StreamCall, Budget, InFlight, Json, Report, .. ConnectionOptions, .. connection]);
        Checkup.Arguments.Add(Host);
        Agent = Command("agent",
            "Runs as one load agent of a distributed run the gateway created (POST /api/runs with agents): takes shard --shard of run --run-id from the shared " +
            "history (--history-provider and --history, or the environment's History__Provider and ConnectionStrings__History / History__DatabasePath), runs that " +
            "share of its plan against --target, beats every second while running, and writes its exact histograms, counts and time series back. " +
            "Exit codes: 0 its share completed; 1 it did not, or its figures could not be stored; 105 interrupted; 2 a usage error (no such run, shard taken).",
            [Target, RunId, Shard, HistoryProvider, History, .. ConnectionOptions, .. connection]);
        Root = new RootCommand("Load-tests a gRPC service (PerformanceService, or any method --call names) with the gateway's run engine. A command line that names no command is a run; " +
            "--workload, --lessons and --agent (today's spellings) are compare, lessons and agent. " + RunExitCodes) { Run, Compare, Lessons, Agent, Checkup };
        Root.HelpName = Name;
    }

    /// <summary>
    /// The plan the options describe, for --strategy (all: each strategy in turn) or the one --connections names, or for
    /// compare's workload: every value as it was parsed into its type, and <paramref name="data"/> (from --data, a file or stdin).
    /// </summary>
    public bool TryInput(ParseResult parsed, string? data, out RunPlanInput input, out string error)
    {
        input = null!;
        var (given, workload, connections) = (parsed.GetValue(Strategy), parsed.GetValue(Workload), parsed.GetValue(Connections));
        // ghz's --connections is the strategy that opens them: 1 is single-connection, more is multiple-connections.
        var named = connections is null ? null : connections == 1 ? "single-connection" : "multiple-connections";
        var strategy = named ?? given;
        error = named is not null && parsed.GetResult(Strategy) is { Implicit: false } && given != named
            ? $"--connections {connections} is the {named} strategy, and --strategy named {given}; give one of them."
            : workload is null && strategy != AllStrategies && !StrategyList.Names.Contains(strategy)
            ? $"strategy was '{strategy}'; it must be {AllStrategies} (each in turn) or one of: {string.Join(", ", StrategyList.Names)}."
            : string.Empty;
        if (error.Length > 0)
        {
            return false;
        }

        // Nobody reads the answers of a CLI run one by one, so they are never kept. The plan's target is a gateway's configured target by name; the CLI's --target is the address itself.
        input = new RunPlanInput(strategy, parsed.GetValue(Count), parsed.GetValue(Concurrency), IncludeStatuses: false)
        {
            Load = parsed.GetValue(Load),
            Rate = parsed.GetValue(Rate),
            Duration = parsed.GetValue(Duration)?.TotalSeconds,
            Stages = parsed.GetValue(Stages),
            Percentiles = parsed.GetValue(PercentileList),
            Thresholds = parsed.GetValue(Thresholds),
            Workload = workload,
            Protocol = parsed.GetValue(Protocol),
            Serializer = parsed.GetValue(Serializer),
            HttpVersion = parsed.GetValue(HttpVersion),
            Security = parsed.GetValue(Security),
            FileBytes = parsed.GetValue(FileBytes),
            Connection = parsed.GetValue(ConnectionUse),
            Clients = parsed.GetValue(Clients),
            Variant = parsed.GetValue(Variant),
            Users = parsed.GetValue(Users),
            Call = parsed.GetValue(Call) is { Length: > 0 } call ? call : null,
            Data = data is { Length: > 0 } ? data : null,
        };
        // Each setting RunPlanInput describes is set by its property, as a binder sets it (a length of time in seconds), so a new one needs no line here.
        foreach (var (setting, option) in Settings)
        {
            var value = parsed.GetResult(option)?.GetValueOrDefault<object?>();
            setting.Property.SetValue(input, value is TimeSpan span ? span.TotalSeconds : value);
        }

        // As in ghz, the rate alone asks for an arrival rate (the open load), and a concurrency alone for calls in flight (the
        // closed load) where the strategy's own load would make one call at a time; a suite leaves the concurrency to the
        // strategies that use it. Stages are the ramping load's, named.
        var own = workload is null ? StrategyList.Find(strategy!) : null;
        input = input with
        {
            Load = input.Load ?? (input.Stages is not null ? null
                : input.Rate is not null ? LoadKind.Open
                : input.Concurrency is not null && own is not null && !LoadFact.Of(own.DefaultLoad).UsesConcurrency ? LoadKind.Closed
                : null),
        };
        return true;
    }

    /// <summary>
    /// Today's command lines, whose modes are options: <c>--agent …</c>, <c>--lessons [ids] …</c> and <c>--workload id …</c> become
    /// <c>agent …</c>, <c>lessons [ids] …</c> and <c>compare --workload id …</c>; any other line that names no command is <c>run …</c>.
    /// </summary>
    public ParseResult Parse(IReadOnlyList<string> args)
    {
        if (args is [var first, ..] && (Root.Subcommands.Any(command => command.Name == first) || Root.Options.Any(option => option.Name == first || option.Aliases.Contains(first))))
        {
            return Root.Parse(args);
        }

        string? Given(string option) => args.FirstOrDefault(arg => arg == option || arg.StartsWith(option + "=", StringComparison.Ordinal));
        var (command, mode) = Given("--agent") is { } agent ? (Agent, agent) : Given("--lessons") is { } lessons ? (Lessons, lessons) : (Given(Workload.Name) is null ? Run : Compare, null);
        // The mode's option gives way to its command; the ids of --lessons=ids (or the word after --lessons) are the command's argument.
        return Root.Parse([command.Name, .. args.SelectMany(arg => arg != mode ? [arg] : arg.Split('=', 2) is [_, var ids] ? [ids] : Array.Empty<string>())]);
    }

    /// <summary>
    /// The sentence for a command line the parser refused. An option of another command is named with the commands it
    /// belongs to, so that the parser's refusal still says what is allowed.
    /// </summary>
    public string Problem(ParseResult parsed)
    {
        // The parser keeps an option it does not know as an argument (lessons' ids may have taken it).
        var command = parsed.CommandResult.Command;
        foreach (var name in parsed.Tokens.Where(token => token.Type == TokenType.Argument).Select(token => token.Value.Split('=')[0]))
        {
            var owners = Root.Subcommands.Where(other => other.Options.Any(option => option.Name == name || option.Aliases.Contains(name))).Select(other => other.Name).ToList();
            if (owners.Count > 0)
            {
                return $"{name} is not an option of {command.Name} but of {string.Join(" and ", owners)}.";
            }
        }

        // An option no command has: the closest this command has, as git and dotnet suggest one.
        foreach (var name in parsed.Errors.Select(error => Unrecognized().Match(error.Message)).Where(match => match.Success).Select(match => match.Groups[1].Value.Split('=')[0]))
        {
            if (name.StartsWith('-'))
            {
                var closest = command.Options.SelectMany(option => option.Aliases.Prepend(option.Name))
                    .Select(known => (known, distance: Spelling.Distance(name, known))).MinBy(pair => pair.distance);
                // A short flag is a letter away from every other: only a longer name that is close is suggested.
                var near = closest.known is not null && closest.distance <= name.Length / 3;
                return $"{name} is not an option of {command.Name}{(near ? $"; did you mean {closest.known}?" : ".")}";
            }
        }

        return parsed.Errors[0].Message;
    }

    [GeneratedRegex("^Unrecognized command or argument '(.+)'\\.$")]
    private static partial Regex Unrecognized();

    /// <summary>"--file-bytes" for fileBytes: the run API's name, as options are spelled on a command line.</summary>
    public static string OptionName(string name) =>
        "--" + string.Concat(name.Select(letter => char.IsUpper(letter) ? "-" + char.ToLowerInvariant(letter) : letter.ToString()));

    private const string RunExitCodes =
        "Exit codes: 0 every run completed and every threshold held; 99 a threshold failed (with thresholds, so does a run that did not complete); " +
        "1 a run did not complete (no thresholds given) or a result file could not be written; 105 interrupted (Ctrl+C or SIGTERM); 2 a usage error.";

    private static Command Command(string name, string description, Option[] options)
    {
        var command = new Command(name, description);
        Array.ForEach(options, command.Options.Add);
        return command;
    }

    /// <summary>An option whose value is text (a path, a name, JSON) or a list of them, shown in help as <c>--name &lt;helpName&gt;</c>.</summary>
    private static Option<T> Text<T>(string name, string helpName, string description, params string[] aliases) =>
        new(name, aliases) { Description = description, HelpName = helpName };

    /// <summary>An argument that may be left out; a word in it that starts with '-' is an option its command does not have, which the parser took for it.</summary>
    private static Argument<string> Optional(string name, string description)
    {
        var argument = new Argument<string>(name) { Description = description, Arity = ArgumentArity.ZeroOrOne };
        argument.Validators.Add(result => result.Tokens.Where(token => token.Value.StartsWith('-')).ToList().ForEach(option => result.AddError($"Unrecognized command or argument '{option.Value}'.")));
        return argument;
    }

    private static Option<bool> Flag(string name, string description, params string[] aliases) => new(name, aliases) { Description = description };

    private static Option<T> Typed<T>(string name, string helpName, string description, Func<string, (T Value, string? Problem)> read, params string[] aliases) =>
        Typed(name, helpName, description, (text, _) => read(text), aliases);

    /// <summary>
    /// An option read into its type as it is parsed: text that does not read (empty text too) is a parse error whose sentence
    /// names the field, what it held and what is allowed, as the run API says it.
    /// </summary>
    private static Option<T> Typed<T>(string name, string helpName, string description, Func<string, SymbolResult, (T Value, string? Problem)> read, params string[] aliases) =>
        new(name, aliases)
        {
            Description = description,
            HelpName = helpName,
            CustomParser = result =>
            {
                var (value, problem) = read(result.Tokens.LastOrDefault()?.Value ?? "", result);
                if (problem is not null)
                {
                    result.AddError(problem);
                }

                return value;
            },
        };

    /// <summary>A setting of the plan by its kind: a whole number, a duration as ghz writes it, one of its names, or a repeatable label (--tag for tags).</summary>
    public static Option Setting(PlanSetting setting)
    {
        var (name, about, fallback) = (OptionName(setting.Name), setting.Description.TrimEnd('.'), setting.Default is { } given ? $" (default {given})" : "");
        var (min, max) = (setting.Min.ToString(CultureInfo.InvariantCulture), setting.Max.ToString(CultureInfo.InvariantCulture));
        return setting.Kind switch
        {
            SettingKind.Whole => Typed(name, "number", $"{about}, {min} to {max}{fallback}.", Field<int>(setting.Name, int.TryParse)),
            SettingKind.Seconds => Typed(name, "duration", $"{about}, as ghz writes a duration (10s, 500ms) or in seconds, {min} s to {max} s{fallback}.", Span(setting.Name, setting.Min, (int)setting.Max)),
            SettingKind.Named => Typed<object?>(name, "name", $"{about}: {WireName.Listed(setting.EnumType!)}{fallback}.",
                text => WireName.Read(setting.EnumType!, text) is { } value ? (value, null) : (null, setting.Refused(text))),
            _ => Text<string[]>(name.EndsWith('s') ? name[..^1] : name, "label", $"{about}, repeatable (at most {max})."),
        };
    }

    /// <summary>A workload's setting, as --file-bytes for fileBytes, described with the workloads that take it.</summary>
    private static Option<T> WorkloadSetting<T>(WorkloadParameter parameter, Func<string, (T Value, string? Problem)> read) =>
        Typed(OptionName(parameter.Name), parameter.Name.ToLowerInvariant(),
            $"{string.Join(" and ", WorkloadList.All.Where(workload => workload.Takes(parameter)).Select(workload => workload.Id))}: {parameter.What} " +
            $"{parameter.Allowed} (default {parameter.Default}).", read);

    /// <summary>A whole number; the plan's rules check its range against the run's limits, unless <paramref name="inRange"/> asks for it here.</summary>
    private static Func<string, (int? Value, string? Problem)> Whole(string field, int min, int max, bool inRange = false) => text =>
        int.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var value) && (!inRange || (value >= min && value <= max))
            ? (value, null)
            : (null, RunPlanRules.WholeRefused(field, text, min, max));

    /// <summary>A field of the plan read into its type; text that does not read gets the sentence the run API gives that field's text.</summary>
    private static Func<string, (T? Value, string? Problem)> Field<T>(string field, TryParse<T> parse) where T : struct => text =>
        parse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var value) ? (value, null) : (null, RunPlanText.Refusal(field, text, PlanLimits.Defaults));

    /// <summary>An enum field of the plan by its wire name in any case.</summary>
    private static Func<string, (TEnum? Value, string? Problem)> Wire<TEnum>(string field) where TEnum : struct, Enum => text =>
        WireNames<TEnum>.TryParse(text, out var value) ? (value, null) : (null, RunPlanText.WireRefused<TEnum>(field, text));

    private delegate bool TryParse<T>(string text, NumberStyles styles, IFormatProvider culture, out T value);

    /// <summary>
    /// The full path of a file the results can be written to at the end: its folder must exist now, so a long run is not
    /// lost to a typo.
    /// </summary>
    private static Func<string, (string? Value, string? Problem)> OutputFile(string name) => text =>
    {
        var full = string.IsNullOrWhiteSpace(text) ? null : Path.GetFullPath(text);
        var folder = full is null ? null : Path.GetDirectoryName(full);
        return full is not null && !Directory.Exists(full) && folder is not null && Directory.Exists(folder) ? (full, null)
            : full is not null && Directory.Exists(full) ? (null, $"{name} was '{text}'; that is a folder, and it must name a file.")
            : (null, $"{name} was '{text}'; it must name a file in a folder that exists{(folder is null ? "" : $" ({folder} does not)")}.");
    };

    /// <summary>A workload listener's address: absolute, of <paramref name="scheme"/>, with no path.</summary>
    private static Func<string, (Uri? Value, string? Problem)> Listener(string name, string scheme, string example) => text =>
        EngineOptions.TryListenerAddress(text, scheme, out var uri) ? (uri, null) : (null, $"{name} must be an absolute {scheme}:// address with no path, e.g. {example}; it was '{text}'.");

    /// <summary>An enum by its name in any case, never by its number.</summary>
    private static Func<string, (TEnum? Value, string? Problem)> Named<TEnum>(string field) where TEnum : struct, Enum => text =>
        Enum.TryParse<TEnum>(text, ignoreCase: true, out var value) && Enum.GetNames<TEnum>().Contains(text, StringComparer.OrdinalIgnoreCase)
            ? (value, null)
            : (null, Must(field, text, $"one of: {string.Join(", ", Enum.GetNames<TEnum>().Select(name => name.ToLowerInvariant()))}"));

    /// <summary>A length of time as ghz writes it, from <paramref name="min"/> to <paramref name="max"/> seconds; refused quoting it as it was written.</summary>
    private static Func<string, (TimeSpan? Value, string? Problem)> Span(string field, double min, int max) => text =>
        GhzDuration.TryParse(text, out var value) && value.TotalSeconds >= min && value.TotalSeconds <= max
            ? (value, null)
            : (null, Must(field, text, $"{GhzDuration.Form}, from {min.ToString(CultureInfo.InvariantCulture)} s to {max} s"));

    /// <summary>Another option's value as its own reader reads it, for a sentence that depends on it: null when it is left out or does not read (its refusal is its own).</summary>
    private static T? Sibling<T>(SymbolResult result, string name, Func<string, (T? Value, string? Problem)> read) where T : struct =>
        result.GetResult(name)?.Tokens.LastOrDefault()?.Value is { } text ? read(text).Value : null;

    private static string Must(string field, string text, string allowed) => $"{field} was '{text}'; it must be {allowed}.";
}
