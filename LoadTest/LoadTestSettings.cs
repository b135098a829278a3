using System.CommandLine;
using System.Globalization;
using LoadEngine;
using LoadEngine.Strategies;
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
    IReadOnlyList<RunPlan> Plans,
    bool IsSuite,
    EngineOptions Engine,
    PlanLimits Limits,
    string? JsonPath,
    string? ReportPath,
    ProgressMode Progress,
    LogLevel LogLevel)
{
    public const double MinTimeoutSeconds = 0.01;
    public const int MaxCallTimeoutSeconds = 3600;
    public const int MaxConnectTimeoutSeconds = 120;
    public const int MaxInFlightLimit = 100_000;

    public static IReadOnlyList<string> LogLevelNames { get; } = [.. Enum.GetNames<LogLevel>().Select(name => name.ToLowerInvariant())];

    /// <summary>The settings, or the sentence that says what was wrong and what is allowed.</summary>
    public static bool TryRead(ParseResult parsed, LoadTestCommand command, bool outputRedirected, out LoadTestSettings settings, out string error)
    {
        settings = null!;
        var targetText = parsed.GetValue(command.Target);
        if (!EngineOptions.TryServiceAddress(targetText, out var target))
        {
            error = $"--target must be an absolute http:// or https:// address with no path, e.g. http://127.0.0.1:5000; it was '{targetText}'.";
            return false;
        }

        var defaults = new EngineOptions();
        if (!TrySeconds(parsed.GetValue(command.CallTimeout), "call-timeout", MaxCallTimeoutSeconds, defaults.CallTimeout, out var callTimeout, out error)
            || !TrySeconds(parsed.GetValue(command.ConnectTimeout), "connect-timeout", MaxConnectTimeoutSeconds, defaults.ConnectTimeout, out var connectTimeout, out error)
            || !RunPlanRules.TryWhole(parsed.GetValue(command.MaxInFlight), "max-in-flight", 1, MaxInFlightLimit, PlanLimits.Defaults.MaxConcurrency, out var maxInFlight, out error)
            || !TryLogLevel(parsed.GetValue(command.LogLevel), out var logLevel, out error)
            || !TryOutputFile(parsed.GetValue(command.Json), "json", out var jsonPath, out error)
            || !TryOutputFile(parsed.GetValue(command.Report), "report", out var reportPath, out error))
        {
            return false;
        }

        // As in the gateway, one number bounds both a closed run's concurrency and what the engine keeps in flight.
        var limits = PlanLimits.Defaults with { MaxConcurrency = maxInFlight };
        if (!TryPlans(parsed, command, limits, out var plans, out var isSuite, out error))
        {
            return false;
        }

        var progress = parsed.GetValue(command.Quiet) ? ProgressMode.Quiet
            : parsed.GetValue(command.Plain) || outputRedirected ? ProgressMode.Plain
            : ProgressMode.Live;
        var engine = new EngineOptions { ServerUri = target, CallTimeout = callTimeout, ConnectTimeout = connectTimeout, MaxInFlight = maxInFlight };
        settings = new LoadTestSettings(target, plans, isSuite, engine, limits, jsonPath, reportPath, progress, logLevel);
        return true;
    }

    /// <summary>One plan, or for "all" one per strategy, each under its own load unless --load names one (the gateway's POST /api/suites).</summary>
    private static bool TryPlans(ParseResult parsed, LoadTestCommand command, PlanLimits limits, out IReadOnlyList<RunPlan> plans, out bool isSuite, out string error)
    {
        plans = [];
        var strategy = parsed.GetValue(command.Strategy);
        isSuite = strategy == LoadTestCommand.AllStrategies;
        if (!isSuite && !StrategyList.Names.Contains(strategy))
        {
            error = $"strategy was '{strategy}'; it must be {LoadTestCommand.AllStrategies} (each in turn) or one of: {string.Join(", ", StrategyList.Names)}.";
            return false;
        }

        // Nobody reads the answers of a CLI run one by one, so they are never kept.
        var input = new RunPlanInput(null, parsed.GetValue(command.Count), parsed.GetValue(command.Concurrency), parsed.GetValue(command.Warmup),
            parsed.GetValue(command.DelayMs), parsed.GetValue(command.PayloadBytes), IncludeStatuses: "false")
        {
            Load = parsed.GetValue(command.Load),
            Rate = parsed.GetValue(command.Rate),
            Duration = parsed.GetValue(command.Duration),
            Stages = parsed.GetValue(command.Stages),
            Percentiles = parsed.GetValue(command.PercentileList),
            Thresholds = parsed.GetValue(command.Thresholds),
        };
        var list = new List<RunPlan>();
        foreach (var name in isSuite ? StrategyList.Names : [strategy!])
        {
            if (!RunPlanRules.TryCreate(input with { Strategy = name }, limits, StrategyList.Names, out var plan, out error))
            {
                error = isSuite ? $"For {name}: {error}" : error;
                return false;
            }

            list.Add(plan);
        }

        plans = list;
        error = string.Empty;
        return true;
    }

    private static bool TrySeconds(string? text, string name, int max, TimeSpan fallback, out TimeSpan value, out string error)
    {
        error = string.Empty;
        value = fallback;
        if (text is null)
        {
            return true;
        }

        if (double.TryParse(text, NumberStyles.AllowDecimalPoint, CultureInfo.InvariantCulture, out var seconds) && seconds >= MinTimeoutSeconds && seconds <= max)
        {
            value = TimeSpan.FromSeconds(seconds);
            return true;
        }

        error = $"{name} was '{text}'; it must be a number of seconds from {MinTimeoutSeconds.ToString(CultureInfo.InvariantCulture)} to {max}.";
        return false;
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
