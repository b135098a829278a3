using System.CommandLine;
using System.Globalization;
using LoadEngine;
using LoadEngine.Clients;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using LoadTest.Output;
using Microsoft.Extensions.Logging;

namespace LoadTest;

/// <summary>How progress is shown: a live display on a terminal, plain lines when output is redirected, or none.</summary>
public enum ProgressMode
{
    Live,
    Plain,
    Quiet,
}

/// <summary>
/// A command line read and checked: where to send calls, one plan per strategy to run (each from <see cref="RunPlanRules"/>,
/// under the gateway's default limits), and where the results go.
/// </summary>
public sealed record LoadTestSettings(
    Uri Target,
    TargetCall? Described,
    IReadOnlyList<RunPlan> Plans,
    bool IsSuite,
    EngineOptions Engine,
    PlanLimits Limits,
    string? JsonPath,
    string? ReportPath,
    ProgressMode Progress,
    LogLevel LogLevel)
{
    /// <summary>--csv, or -O csv -o file.</summary>
    public string? CsvPath { get; init; }

    /// <summary>ghz's -O without -o: the format stdout holds alone, the summary going to stderr; null for the summary on stdout.</summary>
    public ResultFormat? StdoutFormat { get; init; }

    public const double MinTimeoutSeconds = 0.01;
    public const int MaxCallTimeoutSeconds = 3600;
    public const int MaxConnectTimeoutSeconds = 120;
    public const int MaxInFlightLimit = 100_000;

    public static IReadOnlyList<string> LogLevelNames { get; } = [.. Enum.GetNames<LogLevel>().Select(name => name.ToLowerInvariant())];

    /// <summary>The settings, or the sentence that says what was wrong and what is allowed.</summary>
    public static bool TryRead(ParseResult parsed, LoadTestCommand command, bool outputRedirected, out LoadTestSettings settings, out string error, bool withPlans = true)
    {
        settings = null!;
        if (!TryTarget(parsed, command, out var target, out error))
        {
            return false;
        }

        var defaults = new EngineOptions();
        if (!TrySeconds(parsed.GetValue(command.CallTimeout), "call-timeout", MaxCallTimeoutSeconds, defaults.CallTimeout, out var callTimeout, out error)
            || !TrySeconds(parsed.GetValue(command.ConnectTimeout), "connect-timeout", MaxConnectTimeoutSeconds, defaults.ConnectTimeout, out var connectTimeout, out error)
            || !TrySeconds(parsed.GetValue(command.SilenceSeconds), "silence-seconds", MaxCallTimeoutSeconds, defaults.SilenceTimeout, out var silence, out error)
            || !TrySeconds(parsed.GetValue(command.ConnectFailureSeconds), "connect-failure-seconds", MaxCallTimeoutSeconds, defaults.ConnectFailureWindow, out var connectFailure, out error)
            || !RunPlanRules.TryWhole(parsed.GetValue(command.MaxInFlight), "max-in-flight", 1, MaxInFlightLimit, PlanLimits.Defaults.MaxConcurrency, out var maxInFlight, out error)
            || !TryLogLevel(parsed.GetValue(command.LogLevel), out var logLevel, out error)
            || !TryOutputFile(parsed.GetValue(command.Json), "json", out var jsonPath, out error)
            || !TryOutputFile(parsed.GetValue(command.Report), "report", out var reportPath, out error)
            || !TryOutputFile(parsed.GetValue(command.Csv), "csv", out var csvPath, out error)
            || !TryFormat(parsed, command, ref jsonPath, ref reportPath, ref csvPath, out var stdoutFormat, out error)
            || !TryListener(parsed.GetValue(command.Http1Target), command.Http1Target.Name, Uri.UriSchemeHttp, "http://127.0.0.1:5002", out var http1Target, out error)
            || !TryListener(parsed.GetValue(command.TlsTarget), command.TlsTarget.Name, Uri.UriSchemeHttps, "https://127.0.0.1:5001", out var tlsTarget, out error)
            || !TryCertificate(parsed.GetValue(command.TrustCertificate), out var certificate, out error)
            || !TryConnection(parsed, command, target, out var connection, out error)
            || !TargetCall.TryRead(parsed, command, out var described, out var data, out error))
        {
            return false;
        }

        // As in the gateway, one number bounds both a closed run's concurrency and what the engine keeps in flight.
        var limits = PlanLimits.Defaults with { MaxConcurrency = maxInFlight };
        var engine = new EngineOptions
        {
            ServerUri = target, CallTimeout = callTimeout, ConnectTimeout = connectTimeout, SilenceTimeout = silence, ConnectFailureWindow = connectFailure, MaxInFlight = maxInFlight,
            Http1Uri = http1Target, TlsUri = tlsTarget, TrustedCertificatePath = certificate, SettingNames = ListenerSettingNames.Cli, Connection = connection,
        };
        // The lessons bring their own plans (LessonsMode); a load test's come from the command line.
        IReadOnlyList<RunPlan> plans = [];
        var isSuite = false;
        // --list runs nothing, so it needs no plan.
        if (withPlans && described is not { List: true } && (!TryPlans(parsed, command, data, limits, out plans, out isSuite, out error) || !TryListenersFor(plans, engine, out error)))
        {
            return false;
        }

        // stdout holding a format alone (ghz's -O json > run.json) holds no progress either.
        var progress = parsed.GetValue(command.Quiet) || stdoutFormat is not null ? ProgressMode.Quiet
            : parsed.GetValue(command.Plain) || outputRedirected ? ProgressMode.Plain
            : ProgressMode.Live;
        settings = new LoadTestSettings(target, described, plans, isSuite, engine, limits, jsonPath, reportPath, progress, logLevel) { CsvPath = csvPath, StdoutFormat = stdoutFormat };
        return true;
    }

    /// <summary>
    /// One plan, or for "all" one per strategy, each under its own load unless --load names one (the gateway's POST /api/suites);
    /// for compare's --workload, one plan per contender.
    /// </summary>
    private static bool TryPlans(ParseResult parsed, LoadTestCommand command, string? data, PlanLimits limits, out IReadOnlyList<RunPlan> plans, out bool isSuite, out string error)
    {
        plans = [];
        isSuite = false;
        var strategy = parsed.GetValue(command.Strategy);
        var workload = parsed.GetValue(command.Workload);
        if (parsed.GetResult(command.Connections) is not null && !TryConnections(parsed.GetValue(command.Connections), parsed.GetResult(command.Strategy) is { Implicit: false }, ref strategy, out error))
        {
            return false;
        }

        isSuite = strategy == LoadTestCommand.AllStrategies;
        if (workload is null && !isSuite && !StrategyList.Names.Contains(strategy))
        {
            error = $"strategy was '{strategy}'; it must be {LoadTestCommand.AllStrategies} (each in turn) or one of: {string.Join(", ", StrategyList.Names)}.";
            return false;
        }

        // Each plan setting is read from its option by name (--delay-ms for delayMs), so a new setting needs only its option; the strategy is set per plan.
        // The plan's target is a gateway's configured target by name; the CLI's --target is the address itself.
        var options = parsed.CommandResult.Command.Options.OfType<Option<string>>().ToDictionary(option => option.Name);
        var text = RunPlanText.Fields.Where(field => field is not ("strategy" or "target"))
            .ToDictionary(field => field, field => options.TryGetValue(LoadTestCommand.OptionName(field), out var option) ? parsed.GetValue(option) : null);
        // The data may come from a file or stdin.
        text["data"] = data;
        if (!TryDuration(text, out error))
        {
            return false;
        }

        ImplyLoad(text, isSuite ? null : StrategyList.Find(strategy!));
        if (!RunPlanText.TryRead(text, parsed.GetValue(command.Thresholds), limits, out var input, out error))
        {
            return false;
        }

        // Nobody reads the answers of a CLI run one by one, so they are never kept.
        input = input with { IncludeStatuses = false };
        if (workload is not null)
        {
            return TryWorkloadPlans(parsed.GetValue(command.Contenders), input, limits, out plans, out isSuite, out error);
        }

        var list = new List<RunPlan>();
        foreach (var name in isSuite ? StrategyList.Names : [strategy!])
        {
            if (!RunPlanRules.TryCreate(input with { Strategy = name, SharedBy = isSuite ? StrategyList.Names : [] }, limits, StrategyList.Names, out var plan, out error))
            {
                // A problem of one strategy's plan names it; one every strategy has (the data, a threshold) is said once, as it is.
                var problem = error;
                var everyStrategy = isSuite && StrategyList.Names.All(other =>
                    !RunPlanRules.TryCreate(input with { Strategy = other, SharedBy = StrategyList.Names }, limits, StrategyList.Names, out _, out var theirs) && theirs == problem);
                error = isSuite && !everyStrategy ? $"For {name}: {error}" : error;
                return false;
            }

            list.Add(plan);
        }

        plans = list;
        error = string.Empty;
        return true;
    }

    /// <summary>
    /// A workload's plan for the contender --protocol and its companions name, or one per contender of --contenders
    /// (all: every contender the workload's settings allow, in the list's order) as a suite.
    /// </summary>
    private static bool TryWorkloadPlans(string? contenders, RunPlanInput input, PlanLimits limits, out IReadOnlyList<RunPlan> plans, out bool isSuite, out string error)
    {
        plans = [];
        isSuite = contenders is not null;
        if (contenders is null)
        {
            var made = RunPlanRules.TryCreate(input with { Strategy = null }, limits, [], out var plan, out error);
            plans = made ? [plan] : [];
            return made;
        }

        if (input.Protocol is not null || input.Serializer is not null || input.HttpVersion is not null || input.Security is not null)
        {
            error = "--contenders names the contenders itself; leave out --protocol, --serializer, --http-version and --security.";
            return false;
        }

        var all = contenders == LoadTestCommand.AllContenders;
        List<Contender?> named = all ? [.. ContenderList.All] : [.. contenders.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries).Select(ContenderList.Find)];
        if (named.Count == 0 || named.Contains(null))
        {
            error = $"contenders was '{contenders}'; it must be {LoadTestCommand.AllContenders} or names separated by commas, from: {string.Join(", ", ContenderList.Names)}.";
            return false;
        }

        var list = new List<RunPlan>();
        error = string.Empty;
        foreach (var contender in named.Distinct())
        {
            if (RunPlanRules.TryCreate(contender!.Into(input with { Strategy = null }), limits, [], out var plan, out error))
            {
                list.Add(plan);
            }
            // "all" means every contender that can run this workload as set (bulk-read's stream: the gRPC ones).
            else if (!all)
            {
                error = $"For {contender.Name}: {error}";
                return false;
            }
        }

        plans = list;
        error = list.Count > 0 ? string.Empty : error;
        return list.Count > 0;
    }

    /// <summary>Every contender to run has its listener, and under TLS a readable certificate, among the options given.</summary>
    private static bool TryListenersFor(IReadOnlyList<RunPlan> plans, EngineOptions engine, out string error)
    {
        error = string.Empty;
        foreach (var contender in plans.Select(plan => plan.Workload?.Contender).OfType<Contender>())
        {
            if (!WorkloadTargets.Check(contender, engine, out error))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>
    /// The address to load: --target, or run's argument as ghz takes it (host:port over TLS unless --insecure, or an
    /// http:// or https:// address).
    /// </summary>
    private static bool TryTarget(ParseResult parsed, LoadTestCommand command, out Uri target, out string error)
    {
        target = null!;
        error = string.Empty;
        var option = parsed.GetValue(command.Target);
        var argument = parsed.GetValue(command.Host);
        var insecure = parsed.GetValue(command.Insecure);
        if (option is null && argument is null)
        {
            error = "Option '--target' is required.";
            return false;
        }

        if (option is not null && argument is not null)
        {
            error = $"the address was given twice, --target '{option}' and the argument '{argument}'; give it once.";
            return false;
        }

        var text = option ?? (argument!.Contains("://", StringComparison.Ordinal) ? argument : $"{(insecure ? "http" : "https")}://{argument}");
        if (!EngineOptions.TryServiceAddress(text, out target))
        {
            error = option is not null
                ? $"--target must be an absolute http:// or https:// address with no path, e.g. http://127.0.0.1:5000; it was '{option}'."
                : $"the address was '{argument}'; it must be host:port (TLS unless --insecure) or an http:// or https:// address with no path, e.g. 127.0.0.1:5000.";
            return false;
        }

        if (insecure && target.Scheme == Uri.UriSchemeHttps)
        {
            error = $"--insecure calls in cleartext, and the address {target} is https://; give http:// or leave --insecure out.";
            return false;
        }

        return true;
    }

    /// <summary>The target connection the options describe (ghz's names), checked against the address and its certificates loaded once to prove they can be.</summary>
    private static bool TryConnection(ParseResult parsed, LoadTestCommand command, Uri target, out TargetConnection connection, out string error)
    {
        connection = null!;
        var metadata = new List<KeyValuePair<string, string>>();
        foreach (var text in parsed.GetValue(command.Metadata) ?? [])
        {
            if (!TargetConnection.TryParseMetadata(text, command.Metadata.Name, out var pairs, out error))
            {
                return false;
            }

            metadata.AddRange(pairs);
        }

        if (parsed.GetValue(command.MetadataFile) is { } file)
        {
            if (!File.Exists(file))
            {
                error = $"{command.MetadataFile.Name} '{file}' does not exist.";
                return false;
            }

            var json = File.ReadAllText(file);
            if (!json.TrimStart().StartsWith('{') || !TargetConnection.TryParseMetadata(json, command.MetadataFile.Name, out var pairs, out error))
            {
                error = $"{command.MetadataFile.Name} '{file}' must hold a JSON object of string values, e.g. {{\"authorization\":\"Bearer x\"}}.";
                return false;
            }

            metadata.AddRange(pairs);
        }

        string? Full(Option<string> option) => parsed.GetValue(option) is { } path ? Path.GetFullPath(path) : null;
        connection = new TargetConnection
        {
            CaCertificate = Full(command.CaCertificate),
            ClientCertificate = Full(command.ClientCertificate),
            ClientKey = Full(command.ClientKey),
            Authority = parsed.GetValue(command.Authority),
            InsecureSkipVerify = parsed.GetValue(command.InsecureSkipVerify),
            Metadata = metadata,
            Compression = parsed.GetValue(command.Compression) ?? (parsed.GetValue(command.EnableCompression) ? TargetConnection.Gzip : null),
            SettingNames = ConnectionSettingNames.Cli,
        };
        return connection.TryLoad(target, out _, out error);
    }

    private static bool TryListener(string? text, string name, string scheme, string example, out Uri? address, out string error)
    {
        error = string.Empty;
        address = null;
        if (text is null)
        {
            return true;
        }

        if (EngineOptions.TryListenerAddress(text, scheme, out var uri))
        {
            address = uri;
            return true;
        }

        error = $"{name} must be an absolute {scheme}:// address with no path, e.g. {example}; it was '{text}'.";
        return false;
    }

    private static bool TryCertificate(string? text, out string? path, out string error)
    {
        error = string.Empty;
        path = text is null ? null : Path.GetFullPath(text);
        if (path is null || File.Exists(path))
        {
            return true;
        }

        error = $"trust-certificate was '{text}'; no such file. It names the service's service-certificate.pem (in PerformanceService/data by default).";
        return false;
    }

    private static bool TrySeconds(string? text, string name, int max, TimeSpan fallback, out TimeSpan value, out string error)
    {
        error = string.Empty;
        value = fallback;
        if (text is null)
        {
            return true;
        }

        if (GhzDuration.TryParse(text, out var given) && given.TotalSeconds >= MinTimeoutSeconds && given.TotalSeconds <= max)
        {
            value = given;
            return true;
        }

        error = $"{name} was '{text}'; it must be {GhzDuration.Form}, from {MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} s to {max} s.";
        return false;
    }

    /// <summary>ghz's --connections as the strategy that opens them: 1 is single-connection, more is multiple-connections.</summary>
    private static bool TryConnections(int? connections, bool strategyGiven, ref string? strategy, out string error)
    {
        error = string.Empty;
        if (connections is not >= 1)
        {
            error = $"connections was '{connections}'; it must be a whole number from 1 (single-connection; more is multiple-connections).";
            return false;
        }

        var named = connections == 1 ? "single-connection" : "multiple-connections";
        if (strategyGiven && strategy != named)
        {
            error = $"--connections {connections} is the {named} strategy, and --strategy named {strategy}; give one of them.";
            return false;
        }

        strategy = named;
        return true;
    }

    /// <summary>The duration as ghz writes it (10s, 1m30s, 500ms) or in seconds, handed to the plan's rules in seconds, which check its range.</summary>
    private static bool TryDuration(Dictionary<string, string?> text, out string error)
    {
        error = string.Empty;
        if (text.GetValueOrDefault("duration") is not { } duration)
        {
            return true;
        }

        // The range is checked here too, so that the sentence quotes the duration as it was written.
        if (!GhzDuration.TryParse(duration, out var value) || !(value.TotalSeconds >= RunPlanRules.MinDurationSeconds && value.TotalSeconds <= PlanLimits.Defaults.MaxRunSeconds))
        {
            error = $"duration was '{duration}'; it must be {GhzDuration.Form}, from {RunPlanRules.MinDurationSeconds.ToString(CultureInfo.InvariantCulture)} s to " +
                $"{PlanLimits.Defaults.MaxRunSeconds} s.";
            return false;
        }

        text["duration"] = GhzDuration.Seconds(value);
        return true;
    }

    /// <summary>
    /// As in ghz, the rate alone asks for an arrival rate (the open load), and a concurrency alone for calls in flight (the
    /// closed load) where the strategy's own load would make one call at a time; a suite leaves the concurrency to the
    /// strategies that use it.
    /// </summary>
    private static void ImplyLoad(Dictionary<string, string?> text, StrategyInfo? strategy)
    {
        if (text.GetValueOrDefault("load") is not null || text.GetValueOrDefault("stages") is not null)
        {
            return;
        }

        if (text.GetValueOrDefault("rate") is not null)
        {
            text["load"] = RunPlanRules.Name(LoadKind.Open);
        }
        else if (text.GetValueOrDefault("concurrency") is not null && strategy is not null && !LoadFact.Of(strategy.DefaultLoad).UsesConcurrency)
        {
            text["load"] = RunPlanRules.Name(LoadKind.Closed);
        }
    }

    /// <summary>
    /// ghz's -O and -o: with -o, the file is written in the format as --json, --report or --csv would write it; without,
    /// stdout holds the format alone. The summary is the default, and is never a file.
    /// </summary>
    private static bool TryFormat(ParseResult parsed, LoadTestCommand command, ref string? jsonPath, ref string? reportPath, ref string? csvPath, out ResultFormat? stdout, out string error)
    {
        stdout = null;
        error = string.Empty;
        var text = parsed.GetValue(command.Format);
        var output = parsed.GetValue(command.Output);
        if (text is null && output is null)
        {
            return true;
        }

        var format = ResultFormat.Summary;
        if (text is not null && !ResultFormats.TryParse(text, out format))
        {
            error = $"format was '{text}'; it must be one of: {string.Join(", ", ResultFormats.Names)}.";
            return false;
        }

        if (output is not null && format == ResultFormat.Summary)
        {
            error = $"-o names the file -O writes; the summary is always printed, so give -O {string.Join("|", ResultFormats.Names.Skip(1))} with it.";
            return false;
        }

        if (format == ResultFormat.Summary)
        {
            return true;
        }

        if (output is null)
        {
            stdout = format;
            return true;
        }

        ref var path = ref format == ResultFormat.Json ? ref jsonPath : ref format == ResultFormat.Html ? ref reportPath : ref csvPath;
        var own = format == ResultFormat.Json ? "--json" : format == ResultFormat.Html ? "--report" : "--csv";
        if (path is not null)
        {
            error = $"{own} and -O {ResultFormats.Names[(int)format]} -o both name the file; give one of them.";
            return false;
        }

        return TryOutputFile(output, "output", out path, out error);
    }

    private static bool TryLogLevel(string? text, out LogLevel level, out string error)
    {
        error = string.Empty;
        level = LogLevel.Error;
        if (text is null || (Enum.TryParse(text, ignoreCase: true, out level) && LogLevelNames.Contains(text.ToLowerInvariant())))
        {
            return true;
        }

        error = $"log-level was '{text}'; it must be one of: {string.Join(", ", LogLevelNames)}.";
        return false;
    }

    /// <summary>A file the results can be written to at the end: its folder must exist now, so a long run is not lost to a typo.</summary>
    private static bool TryOutputFile(string? text, string name, out string? path, out string error)
    {
        error = string.Empty;
        path = null;
        if (text is null)
        {
            return true;
        }

        var full = string.IsNullOrWhiteSpace(text) ? null : Path.GetFullPath(text);
        var folder = full is null ? null : Path.GetDirectoryName(full);
        if (full is null || Directory.Exists(full) || folder is null || !Directory.Exists(folder))
        {
            error = full is not null && Directory.Exists(full)
                ? $"{name} was '{text}'; that is a folder, and it must name a file."
                : $"{name} was '{text}'; it must name a file in a folder that exists{(folder is null ? "" : $" ({folder} does not)")}.";
            return false;
        }

        path = full;
        return true;
    }
}
