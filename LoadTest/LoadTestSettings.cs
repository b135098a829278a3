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

        var (jsonPath, reportPath, csvPath) = (parsed.GetValue(command.Json), parsed.GetValue(command.Report), parsed.GetValue(command.Csv));
        if (!TryFormat(parsed, command, ref jsonPath, ref reportPath, ref csvPath, out var stdoutFormat, out error)
            || !TryConnection(parsed, command, target, out var connection, out error)
            || !TargetCall.TryRead(parsed, command, out var described, out var data, out error))
        {
            return false;
        }

        // As in the gateway, one number bounds both a closed run's concurrency and what the engine keeps in flight.
        var maxInFlight = parsed.GetValue(command.MaxInFlight) ?? PlanLimits.Defaults.MaxConcurrency;
        var limits = PlanLimits.Defaults with { MaxConcurrency = maxInFlight };
        var defaults = new EngineOptions();
        var engine = new EngineOptions
        {
            ServerUri = target,
            CallTimeout = parsed.GetValue(command.CallTimeout) ?? defaults.CallTimeout,
            ConnectTimeout = parsed.GetValue(command.ConnectTimeout) ?? defaults.ConnectTimeout,
            SilenceTimeout = parsed.GetValue(command.SilenceSeconds) ?? defaults.SilenceTimeout,
            ConnectFailureWindow = parsed.GetValue(command.ConnectFailureSeconds) ?? defaults.ConnectFailureWindow,
            MaxInFlight = maxInFlight,
            Http1Uri = parsed.GetValue(command.Http1Target),
            TlsUri = parsed.GetValue(command.TlsTarget),
            TrustedCertificatePath = parsed.GetValue(command.TrustCertificate),
            SettingNames = ListenerSettingNames.Cli, Connection = connection,
        };
        // The lessons bring their own plans (LessonsMode); a load test's come from the command line.
        IReadOnlyList<RunPlan> plans = [];
        var isSuite = false;
        // --list runs nothing, so it needs no plan.
        if (withPlans && described is not { List: true } && !TryPlans(parsed, command, data, limits, out plans, out isSuite, out error))
        {
            return false;
        }

        // Every contender to run has its listener, and under TLS a readable certificate, among the options given.
        foreach (var contender in plans.Select(plan => plan.Workload?.Contender).OfType<Contender>())
        {
            if (!WorkloadTargets.Check(contender, engine, out error))
            {
                return false;
            }
        }

        // stdout holding a format alone (ghz's -O json > run.json) holds no progress either.
        var progress = parsed.GetValue(command.Quiet) || stdoutFormat is not null ? ProgressMode.Quiet
            : parsed.GetValue(command.Plain) || outputRedirected ? ProgressMode.Plain
            : ProgressMode.Live;
        settings = new LoadTestSettings(target, described, plans, isSuite, engine, limits, jsonPath, reportPath, progress, parsed.GetValue(command.LogLevel) ?? LogLevel.Error) { CsvPath = csvPath, StdoutFormat = stdoutFormat };
        return true;
    }

    /// <summary>
    /// One plan, or for "all" one per strategy, each under its own load unless --load names one (the gateway's POST /api/suites);
    /// for compare's --workload, the plan of the contender --protocol and its companions name, or one per contender of
    /// --contenders (all: every contender the workload's settings allow, in the list's order) as a suite.
    /// </summary>
    private static bool TryPlans(ParseResult parsed, LoadTestCommand command, string? data, PlanLimits limits, out IReadOnlyList<RunPlan> plans, out bool isSuite, out string error)
    {
        plans = [];
        isSuite = false;
        if (!command.TryInput(parsed, data, out var input, out error))
        {
            return false;
        }

        var contenders = input.Workload is null ? null : parsed.GetValue(command.Contenders);
        isSuite = contenders is not null || (input.Workload is null && input.Strategy == LoadTestCommand.AllStrategies);
        if (contenders is not null)
        {
            return TryContenders(contenders, input with { Strategy = null }, limits, out plans, out error);
        }

        if (isSuite)
        {
            return PlanExpansion.TrySuite(input, null, limits, out plans, out error);
        }

        var made = input.Workload is null ? RunPlanRules.TryCreate(input, limits, StrategyList.Names, out var plan, out error)
            : RunPlanRules.TryCreate(input with { Strategy = null }, limits, [], out plan, out error);
        plans = made ? [plan] : [];
        return made;
    }

    private static bool TryContenders(string contenders, RunPlanInput input, PlanLimits limits, out IReadOnlyList<RunPlan> plans, out string error)
    {
        plans = [];
        if (input.Protocol is not null || input.Serializer is not null || input.HttpVersion is not null || input.Security is not null)
        {
            error = "--contenders names the contenders itself; leave out --protocol, --serializer, --http-version and --security.";
            return false;
        }

        var named = contenders == LoadTestCommand.AllContenders ? null : contenders.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries);
        if (named is not null && (named.Length == 0 || named.Any(name => ContenderList.Find(name) is null)))
        {
            error = $"contenders was '{contenders}'; it must be {LoadTestCommand.AllContenders} or names separated by commas, from: {string.Join(", ", ContenderList.Names)}.";
            return false;
        }

        return PlanExpansion.TryContenders(input, named, limits, out plans, out error);
    }

    /// <summary>
    /// The address to load: --target, or run's argument as ghz takes it (host:port over TLS unless --insecure, or an
    /// http:// or https:// address).
    /// </summary>
    private static bool TryTarget(ParseResult parsed, LoadTestCommand command, out Uri target, out string error)
    {
        target = null!;
        var option = parsed.GetValue(command.Target);
        var argument = parsed.GetValue(command.Host);
        var insecure = parsed.GetValue(command.Insecure);
        var text = option ?? (argument is null || argument.Contains("://", StringComparison.Ordinal) ? argument : $"{(insecure ? "http" : "https")}://{argument}");
        error = (option, argument) switch
        {
            (null, null) => "Option '--target' is required.",
            ({ }, { }) => $"the address was given twice, --target '{option}' and the argument '{argument}'; give it once.",
            ({ }, _) when !EngineOptions.TryServiceAddress(option, out target) =>
                $"--target must be an absolute http:// or https:// address with no path, e.g. http://127.0.0.1:5000; it was '{option}'.",
            (_, { }) when !EngineOptions.TryServiceAddress(text, out target) =>
                $"the address was '{argument}'; it must be host:port (TLS unless --insecure) or an http:// or https:// address with no path, e.g. 127.0.0.1:5000.",
            _ when insecure && target.Scheme == Uri.UriSchemeHttps => $"--insecure calls in cleartext, and the address {target} is https://; give http:// or leave --insecure out.",
            _ => string.Empty,
        };
        return error.Length == 0;
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

        metadata.AddRange(parsed.GetValue(command.MetadataFile) ?? []);
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

    /// <summary>
    /// ghz's -O and -o: with -o, the file is written in the format as --json, --report or --csv would write it; without,
    /// stdout holds the format alone. The summary is the default, and is never a file.
    /// </summary>
    private static bool TryFormat(ParseResult parsed, LoadTestCommand command, ref string? jsonPath, ref string? reportPath, ref string? csvPath, out ResultFormat? stdout, out string error)
    {
        var format = parsed.GetValue(command.Format) ?? ResultFormat.Summary;
        var output = parsed.GetValue(command.Output);
        stdout = format != ResultFormat.Summary && output is null ? format : null;
        ref var path = ref format == ResultFormat.Json ? ref jsonPath : ref format == ResultFormat.Html ? ref reportPath : ref csvPath;
        var own = format == ResultFormat.Json ? command.Json : format == ResultFormat.Html ? command.Report : command.Csv;
        error = output is null ? string.Empty
            : format == ResultFormat.Summary ? $"-o names the file -O writes; the summary is always printed, so give -O {string.Join("|", ResultFormats.Names.Skip(1))} with it."
            : path is not null ? $"{own.Name} and -O {ResultFormats.Names[(int)format]} -o both name the file; give one of them."
            : string.Empty;
        if (output is not null && error.Length == 0)
        {
            path = output;
        }

        return error.Length == 0;
    }
}
