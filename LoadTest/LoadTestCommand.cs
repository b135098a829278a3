using System.CommandLine;
using System.CommandLine.Parsing;
using System.Globalization;
using System.Text.RegularExpressions;
using LoadEngine;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using LoadEngine.Thresholds;
using LoadTest.Output;

namespace LoadTest;

/// <summary>
/// Every option of the command line. The plan's options carry the run API's field names (--delay-ms for delayMs) and stay
/// text, so that <see cref="RunPlanRules"/> reads them and a bad one gets the same sentence the gateway gives.
/// </summary>
public sealed partial class LoadTestCommand
{
    /// <summary>How the user started it: <c>loadtest</c> when installed as a .NET tool, the repository's <c>./loadtest</c> script otherwise.</summary>
    public static string Name { get; } = Path.GetFileName(Environment.ProcessPath) == "loadtest" ? "loadtest" : "./loadtest";

    public const string AllStrategies = "all";

    public const string AllContenders = "all";

    private static readonly string Percentiles = string.Join(',', RunPlan.DefaultPercentiles.Select(p => p.ToString(CultureInfo.InvariantCulture)));

    public Option<string> Target { get; } = new("--target")
    {
        Description = "The service to load: an absolute http:// or https:// address with no path, e.g. http://127.0.0.1:5000 (PerformanceService unless --call names " +
            "another method). run also takes it as its argument, as ghz does: host:port is TLS unless --insecure, or an http:// or https:// address.",
        HelpName = "url",
    };

    /// <summary>ghz's positional address: <c>loadtest --call pkg.Service/Method -d '{}' 127.0.0.1:5000 --insecure</c>.</summary>
    public Argument<string> Host { get; } = new("host")
    {
        Description = "The address to load, as ghz takes it: host:port (TLS unless --insecure) or an http:// or https:// address; the same as --target.",
        Arity = ArgumentArity.ZeroOrOne,
    };

    public Option<bool> Insecure { get; } = new("--insecure")
    {
        Description = "ghz's plaintext: a host:port argument is called over cleartext HTTP/2 (http://) instead of TLS.",
    };

    public Option<string> Call { get; } = Text("--call", "method",
        "The method to load, package.Service/Method (or package.Service.Method), of the target described by --proto, --protoset or server reflection.");

    public Option<string> StreamCall { get; } = Text("--stream-call", "method",
        "lessons on --call: the bidirectional method of the same request and answer types the streaming lesson carries the calls on (default: the first the target has).");

    public Option<string[]> Proto { get; } = new("--proto")
    {
        Description = "A .proto file that declares --call's service, repeatable; compiled with the protoc Grpc.Tools ships (well-known types included).",
        HelpName = "file",
    };

    public Option<string[]> ImportPath { get; } = new("--import-path")
    {
        Description = "A folder --proto's imports are found in, repeatable (each --proto file's own folder is searched too).",
        HelpName = "dir",
    };

    public Option<string> ImportPaths { get; } = new("--import-paths", "-i")
    {
        Description = "ghz's form of --import-path: folders separated by commas.",
        HelpName = "a,b",
    };

    public Option<string> Protoset { get; } = Text("--protoset", "file",
        "A compiled FileDescriptorSet (protoc --descriptor_set_out --include_imports) instead of --proto; with neither, the target's server reflection.");

    public Option<string> Data { get; } = new("--data", "-d")
    {
        Description = "The request as JSON (proto3 JSON mapping): one object, or an array (a client or bidirectional stream's messages; unary calls take them in turn). " +
            "ghz's templates work in strings, e.g. {{.RequestNumber}}, {{newUUID}}, {{randomInt 1 9}}. @ reads it from stdin.",
        HelpName = "json",
    };

    public Option<string> DataFile { get; } = new("--data-file", "-D")
    {
        Description = "The request JSON from a file (- for stdin), as --data.",
        HelpName = "file",
    };

    public Option<string[]> Metadata { get; } = new("--metadata", "-m")
    {
        Description = "Metadata on every call, 'key: value' or ghz's JSON object {\"key\":\"value\"}; repeatable. A key ending in -bin takes its value in base64.",
        HelpName = "key: value",
    };

    public Option<string> MetadataFile { get; } = new("--metadata-file", "-M")
    {
        Description = "ghz's metadata file: a JSON object of string values, on every call.",
        HelpName = "file",
    };

    public Option<string> CaCertificate { get; } = Text("--cacert", "pem",
        "https:// only: the CA certificates (PEM) the target's certificate must chain to, instead of the system's.");

    public Option<string> ClientCertificate { get; } = Text("--cert", "pem", "https:// only: the client certificate (PEM) to present, for mutual TLS; with --key.");

    public Option<string> ClientKey { get; } = Text("--key", "pem", "The client certificate's private key (PEM).");

    public Option<string> Authority { get; } = Text("--authority", "name",
        "The :authority (Host) of every call, and the name TLS asks for (SNI) and checks the certificate against; left out, the address's host. " +
        "ghz's --cname (the name TLS checks) is taken for it.", "--cname");

    public Option<bool> InsecureSkipVerify { get; } = new("--insecure-skip-verify", "--skipTLS")
    {
        Description = "https:// only: accept any server certificate, unchecked. Only for a test service; never the default.",
    };

    public Option<string> Compression { get; } = Text("--compression", "gzip", "Compress the request messages: gzip.");

    public Option<bool> EnableCompression { get; } = new("--enable-compression", "-e")
    {
        Description = "ghz's form of --compression gzip.",
    };

    public Option<bool> List { get; } = new("--list")
    {
        Description = "Print the target's services and methods and exit; with --call, the method's request as a JSON template with every field.",
    };

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

    public Option<string> Protocol { get; } = Text("--protocol", "name", $"The contender's protocol: {WireNames<ApiProtocol>.Listed}.");

    public Option<string> Serializer { get; } = Text("--serializer", "name",
        $"Its serializer: {WireNames<PayloadSerializer>.Listed} (default protobuf for gRPC, system-text-json for REST).");

    public Option<string> HttpVersion { get; } = Text("--http-version", "version",
        $"Its HTTP version: {WireNames<WireVersion>.Listed} (default 2 for gRPC, 1.1 for REST).");

    public Option<string> Security { get; } = Text("--security", "mode", $"Its security: {WireNames<WireSecurity>.Listed} (default cleartext).");

    public Option<string> Contenders { get; } = Text("--contenders", "all|list",
        $"Instead of one contender: {AllContenders} (every contender that can run it, in turn, as a suite) or contender names separated by commas, e.g. grpc-h2-cleartext,rest-stj-h1-cleartext. " +
        $"The contenders: {string.Join(", ", ContenderList.Names)}.");

    /// <summary>Each workload setting of <see cref="WorkloadParameters"/>, as --file-bytes for fileBytes.</summary>
    public IReadOnlyDictionary<WorkloadParameter, Option<string>> WorkloadSettings { get; } = WorkloadParameters.All.ToDictionary(
        parameter => parameter,
        parameter => Text(OptionName(parameter), parameter.Name.ToLowerInvariant(),
            $"{string.Join(" and ", WorkloadList.All.Where(workload => workload.Takes(parameter)).Select(workload => workload.Id))}: {parameter.What} " +
            $"{parameter.Allowed} (default {parameter.Default})."));

    public Option<string> Http1Target { get; } = Text("--http1-target", "url",
        "The service's cleartext HTTP/1.1 listener (its Protocols:Http1Url, e.g. http://127.0.0.1:5002), for REST over HTTP/1.1 in cleartext.");

    public Option<string> TlsTarget { get; } = Text("--tls-target", "url",
        "The service's TLS listener (its Protocols:TlsUrl, e.g. https://127.0.0.1:5001), for every contender with --security tls.");

    public Option<string> TrustCertificate { get; } = Text("--trust-certificate", "file",
        "The service's certificate (PEM, e.g. PerformanceService/data/service-certificate.pem): the only one TLS contenders trust.");

    public Option<string> Count { get; } = Text("--count", "calls",
        $"Measured calls (stream messages for streaming-call), 1 to {PlanLimits.Defaults.MaxCount}. A run needs a count, a duration, or both (whichever ends first); " +
        "a workload run left without either makes its workload's own count of calls.", "-n");

    public Option<string> Duration { get; } = Text("--duration", "duration",
        $"How long the measured phase lasts, as ghz writes it (10s, 1m30s, 500ms) or in seconds, {RunPlanRules.MinDurationSeconds.ToString(CultureInfo.InvariantCulture)} s " +
        $"to {PlanLimits.Defaults.MaxRunSeconds} s.", "-z");

    public Option<string> Load { get; } = Text("--load", "shape",
        $"The load shape: {RunPlanRules.LoadNames}. Left out, each strategy's own: " +
        string.Join(", ", StrategyList.All.Select(strategy => $"{strategy.Info.Name} {RunPlanRules.Name(strategy.Info.DefaultLoad)}")) + ".");

    public Option<string> Concurrency { get; } = Text("--concurrency", "calls",
        "Closed load: calls in flight at once (left out, all calls at once, at most --max-in-flight); given without --load, a strategy that calls one at a time runs " +
        "the closed load. Open and ramping: the most in flight (default 1000); a call due beyond it waits, then is dropped.", "-c");

    public Option<string> Rate { get; } = Text("--rate", "per-second",
        "Open load: calls started per second, on a schedule; given without --load (and without --stages), the load is open. Ramping: the rate it starts from (default 0).", "--rps");

    /// <summary>ghz's --connections, as the strategy that opens them: one connection, or several (as many as the calls in flight need).</summary>
    public Option<int?> Connections { get; } = new("--connections")
    {
        Description = "ghz's connection count, as the strategy it names: 1 is single-connection; more is multiple-connections, which opens a connection when " +
            "one's ~100 streams are busy, so the count follows the calls in flight. In place of --strategy.",
        HelpName = "n",
    };

    public Option<string> Stages { get; } = Text("--stages", "list",
        "Ramping load: seconds:rate pairs, each moving the rate linearly to its target, e.g. \"10:5000,20:5000\".");

    /// <summary>The plan's whole-number settings (--warmup, --delay-ms, --payload-bytes), each as <see cref="RunPlanInput"/> describes it: a new one needs no line here.</summary>
    public IReadOnlyList<Option<string>> WholeSettings { get; } = [.. RunPlanRules.DescribedSettings(PlanLimits.Defaults).Select(setting => Text(OptionName(setting.Name), "number",
        $"{setting.Description.TrimEnd('.')}, {setting.Min} to {setting.Max}{(setting.Default is { } fallback ? $" (default {fallback})" : "")}."))];

    public Option<string> PercentileList { get; } = Text("--percentiles", "list",
        $"The latency percentiles to report (default {Percentiles}); any a threshold judges is added.");

    public Option<string[]> Thresholds { get; } = new("--threshold")
    {
        Description = $"A pass/fail condition, repeatable, e.g. \"p99 < 5ms\" or \"errorRate < 1%\". {Threshold.AcceptedForm}",
        HelpName = "condition",
    };

    public Option<string> CallTimeout { get; } = Text("--call-timeout", "duration",
        $"Deadline of each call, as ghz's --timeout writes it (20s, 500ms) or in seconds, {LoadTestSettings.MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} s to " +
        $"{LoadTestSettings.MaxCallTimeoutSeconds} s (default 10 s); also the longest a stream may stay silent.", "--timeout", "-t");

    public Option<string> ConnectTimeout { get; } = Text("--connect-timeout", "seconds",
        $"A connection not made within this many seconds fails the call, {LoadTestSettings.MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} to {LoadTestSettings.MaxConnectTimeoutSeconds} (default 3).");

    public Option<string> SilenceSeconds { get; } = Text("--silence-seconds", "seconds",
        $"A run fails when calls are in flight and none ends for this many seconds (plus any --delay-ms), {LoadTestSettings.MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} " +
        $"to {LoadTestSettings.MaxCallTimeoutSeconds} (default 5): a hung service ends the run instead of holding it.");

    public Option<string> ConnectFailureSeconds { get; } = Text("--connect-failure-seconds", "seconds",
        $"After calls have succeeded, how long calls whose connections time out or are reset may go on with none succeeding before the service counts as gone, " +
        $"{LoadTestSettings.MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} to {LoadTestSettings.MaxCallTimeoutSeconds} (default 30): a connection storm is counted, not taken for a dead service.");

    public Option<string> MaxInFlight { get; } = Text("--max-in-flight", "calls",
        $"Most calls in flight at once, 1 to {LoadTestSettings.MaxInFlightLimit} (default {PlanLimits.Defaults.MaxConcurrency}): caps --concurrency.");

    public Option<string> Json { get; } = Text("--json", "file",
        "Write the run (for a suite, the suite and its runs) to this file, in the JSON shape of the gateway's run API.");

    public Option<string> Report { get; } = Text("--report", "file",
        "Write an HTML report of the run (or the suite) to this file: one self-contained page that opens offline, as the gateway's report.");

    public Option<string> Csv { get; } = Text("--csv", "file",
        "Write the runs to this file as CSV: a header, then one row per run with its figures (calls, failures, calls/s, latency percentiles, late and dropped sends).");

    public Option<string> Format { get; } = Text("--format", "format",
        $"ghz's output format: {string.Join(", ", ResultFormats.Names)}. With -o the file is written in it (as --json, --report or --csv would); without, stdout holds " +
        "only it, and the progress and summary go to stderr.", "-O");

    public Option<string> Output { get; } = Text("--output", "file", "ghz's output path: the file --format is written to.", "-o");

    public Option<bool> Plain { get; } = new("--plain")
    {
        Description = "Plain progress lines, at most one a second, even on a terminal (the default when output is redirected).",
    };

    public Option<bool> Quiet { get; } = new("--quiet")
    {
        Description = "No progress; only the summary.",
    };

    public Argument<string> LessonIds { get; } = new("ids")
    {
        Description = $"The lessons to run, comma-separated ({string.Join(", ", LoadEngine.Lessons.LessonList.Ids)}); left out, all of them.",
        Arity = ArgumentArity.ZeroOrOne,
    };

    public Option<string> Repetitions { get; } = Text("--repetitions", "n",
        $"Repetitions of each experiment, 1 to {LoadEngine.Lessons.LessonList.MaxRepetitions} (default {LoadEngine.Lessons.LessonList.DefaultRepetitions}).");

    public Option<string> RunId { get; } = Text("--run-id", "id", "The distributed run's id, as POST /api/runs answered it.");

    public Option<string> Shard { get; } = Text("--shard", "index/count",
        "This agent's shard, the index from 0 (a Kubernetes Indexed Job's JOB_COMPLETION_INDEX) and the run's agent count, e.g. 0/4.");

    public Option<string> HistoryProvider { get; } = Text("--history-provider", "name",
        "Where the shared history is, Sqlite or Postgres (default: the environment's History__Provider, else Sqlite).");

    public Option<string> History { get; } = Text("--history", "connection",
        "The SQLite file or the PostgreSQL connection string (default: the environment's ConnectionStrings__History, else History__DatabasePath).");

    public Option<string> LogLevel { get; } = Text("--log-level", "level",
        $"The engine's log lines on stderr from this level up: {string.Join(", ", LoadTestSettings.LogLevelNames)} (default error).");

    /// <summary>What describes the method a run calls and its request (ghz's names).</summary>
    public Option[] TargetOptions => [Call, Proto, ImportPath, ImportPaths, Protoset, Data, DataFile, List];

    /// <summary>How every call reaches the target (ghz's names): TLS, :authority, metadata, compression. An agent takes them from its own command line.</summary>
    public Option[] ConnectionOptions => [CaCertificate, ClientCertificate, ClientKey, Authority, InsecureSkipVerify, Metadata, MetadataFile, Compression, EnableCompression];

    public Command Run { get; }

    public Command Compare { get; }

    public Command Lessons { get; }

    public Command Agent { get; }

    public RootCommand Root { get; }

    /// <summary>Every option of every command, each once.</summary>
    public IReadOnlyList<Option> AllOptions => [.. Root.Options.Concat(Root.Subcommands.SelectMany(command => command.Options)).Distinct()];

    public LoadTestCommand()
    {
        // Each command lists --target, then its own options, the plan's, the listeners, and how long to wait and what to show.
        Option[] connection = [CallTimeout, ConnectTimeout, SilenceSeconds, ConnectFailureSeconds, MaxInFlight, Plain, Quiet, LogLevel];
        Option[] listeners = [Http1Target, TlsTarget, TrustCertificate];
        Option[] plan = [Count, Duration, Load, Concurrency, Rate, Stages, .. WholeSettings, PercentileList, Thresholds, Json, Report, Csv, Format, Output];
        Run = Command("run", "Load-tests a gRPC service in-process with the gateway's run engine: PerformanceService, or any method --call names. " +
            "One strategy, or all in turn. " + RunExitCodes,
            [Target, Insecure, Strategy, Connections, .. TargetOptions, .. ConnectionOptions, .. plan, .. connection]);
        Run.Arguments.Add(Host);
        // Not an address but an option run does not have, which the parser took for its argument.
        Host.Validators.Add(host => host.Tokens.Where(token => token.Value.StartsWith('-')).ToList().ForEach(option => host.AddError($"Unrecognized command or argument '{option.Value}'.")));
        Compare = Command("compare",
            "Runs a workload of the published gRPC-vs-REST benchmarks on one contender (a protocol, serializer, HTTP version and security), or on several in turn. " +
            RunExitCodes,
            [Target, Workload, Protocol, Serializer, HttpVersion, Security, Contenders, .. WorkloadSettings.Values, .. plan, .. listeners, .. connection]);
        Lessons = Command("lessons", "Runs the lessons' experiments, each with its own design, after a warm-up, and judges each lesson's claims. " +
            "Exit codes: 0 every headline verdict agrees and is beyond noise; 99 one does not; 1 an experiment did not complete; 105 interrupted; 2 a usage error.",
            [Target, Repetitions, Json, .. TargetOptions.Where(option => option != List), StreamCall, .. ConnectionOptions, .. listeners, .. connection]);
        Lessons.Arguments.Add(LessonIds);
        // Not ids but an option lessons does not have, which the parser took for its argument.
        LessonIds.Validators.Add(ids => ids.Tokens.Where(token => token.Value.StartsWith('-')).ToList().ForEach(option => ids.AddError($"Unrecognized command or argument '{option.Value}'.")));
        Agent = Command("agent",
            "Runs as one load agent of a distributed run the gateway created (POST /api/runs with agents): takes shard --shard of run --run-id from the shared " +
            "history (--history-provider and --history, or the environment's History__Provider and ConnectionStrings__History / History__DatabasePath), runs that " +
            "share of its plan against --target, beats every second while running, and writes its exact histograms, counts and time series back. " +
            "Exit codes: 0 its share completed; 1 it did not, or its figures could not be stored; 105 interrupted; 2 a usage error (no such run, shard taken).",
            [Target, RunId, Shard, HistoryProvider, History, .. ConnectionOptions, .. connection]);
        Root = new RootCommand("Load-tests a gRPC service (PerformanceService, or any method --call names) with the gateway's run engine. A command line that names no command is a run; " +
            "--workload, --lessons and --agent (today's spellings) are compare, lessons and agent. " + RunExitCodes) { Run, Compare, Lessons, Agent };
        Root.HelpName = Name;
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
    public static string OptionName(WorkloadParameter parameter) => OptionName(parameter.Name);

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

    /// <summary>An option whose value stays text until the rules read it, shown in help as <c>--name &lt;helpName&gt;</c>.</summary>
    private static Option<string> Text(string name, string helpName, string description, params string[] aliases) =>
        new(name, aliases) { Description = description, HelpName = helpName };
}
