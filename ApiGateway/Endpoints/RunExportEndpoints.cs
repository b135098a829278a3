using System.Globalization;
using System.Text;
using System.Text.Json;
using ApiGateway.Errors;
using ApiGateway.OpenApi;
using ApiGateway.History;
using ApiGateway.Runs;
using ApiGateway.Targets;
using LoadEngine.Clients;
using LoadEngine.Protocols;
using LoadEngine.Reports;
using LoadEngine.Runs;
using LoadEngine.Strategies;
using Microsoft.AspNetCore.Http.Json;
using Microsoft.Extensions.Options;

namespace ApiGateway.Endpoints;

/// <summary>Any run as a file to keep: the same JSON as GET /api/runs/{id}, or CSV a spreadsheet opens.</summary>
public static class RunExportEndpoints
{
    private static readonly RouteParameter Format = RouteParameter.OneOf("format", ["json", "csv"], "json",
        "json: the shape of GET /api/runs/{id}; csv: one line per figure, then the histogram bins.");

    private static readonly RouteParameters ExportParameters = new([RouteParameter.RunId("run"), Format]);

    public static IEndpointRouteBuilder MapRunExport(this IEndpointRouteBuilder app)
    {
        app.MapGet("/api/runs/{id:guid}/export", ExportAsync)
            .WithTags("Runs")
            .WithSummary("Download one run as a file: format=json (default, the shape of GET /api/runs/{id}) or format=csv (one line per figure, then the histogram bins).")
            .Produces(StatusCodes.Status200OK, contentType: "application/json")
            .Produces(StatusCodes.Status200OK, contentType: "text/csv")
            .WithParameters(ExportParameters)
            .ProducesProblem(ProblemResponses.NoSuchRun(ProblemResponses.ExampleId));
        app.MapGet("/api/runs/{id:guid}/report", RunReportAsync)
            .WithTags("Runs")
            .WithSummary("Download one run as a single-file HTML report: figures, percentiles, verdict, distribution and time series, Chart.js inlined; it opens with no network.")
            .Produces(StatusCodes.Status200OK, contentType: "text/html")
            .WithParameters(RunApiEndpoints.OneRun)
            .ProducesProblem(ProblemResponses.NoSuchRun(ProblemResponses.ExampleId));
        app.MapGet("/api/suites/{id:guid}/report", SuiteReportAsync)
            .WithTags("Suites")
            .WithSummary("Download a suite as a single-file HTML report: the strategies compared, then each run's section.")
            .Produces(StatusCodes.Status200OK, contentType: "text/html")
            .WithParameters(RunApiEndpoints.OneSuite)
            .ProducesProblem(ProblemResponses.NoSuchSuite(ProblemResponses.ExampleId));
        return app;
    }

    private static async Task<IResult> RunReportAsync(Guid id, RunCoordinator coordinator, IRunStore store, ChannelFactory channels, IOptions<TargetsOptions> targets)
    {
        var record = coordinator.FindRun(id) is { } active ? active.Record with { Progress = active.Live.Latest } : await store.GetAsync(id);
        return record is null
            ? ProblemResponses.NoSuchRun(id)
            : Report(ReportContent.ForRun(record, DateTimeOffset.UtcNow, channels.ServerUri.ToString()) with { MetadataKeys = MetadataKeys(targets.Value, record.Plan) },
                $"report-{record.Plan.Strategy}-{record.Id}.html");
    }

    /// <summary>The keys (never the values) of the metadata the run's target sends with every call, as configured now.</summary>
    private static string[] MetadataKeys(TargetsOptions targets, RunPlan plan) =>
        plan.Described?.Target is { } name && targets.Targets.GetValueOrDefault(name) is { } target ? [.. target.Metadata.Keys.Order(StringComparer.Ordinal)] : [];

    private static async Task<IResult> SuiteReportAsync(Guid id, RunCoordinator coordinator, IRunStore store, ChannelFactory channels, IOptions<TargetsOptions> targets)
    {
        var suite = coordinator.FindSuite(id)?.Record ?? await store.GetSuiteAsync(id);
        if (suite is null)
        {
            return ProblemResponses.NoSuchSuite(id);
        }

        // Lists leave the time series out; the report draws them, so read each run whole.
        var runs = new List<RunRecord>();
        foreach (var listed in await store.ListSuiteRunsAsync(id))
        {
            runs.Add(await store.GetAsync(listed.Id) ?? listed);
        }

        return Report(ReportContent.ForSuite(suite, runs, DateTimeOffset.UtcNow, channels.ServerUri.ToString()) with { MetadataKeys = MetadataKeys(targets.Value, suite.Plan) },
            $"report-suite-{suite.Id}.html");
    }

    private static IResult Report(ReportContent content, string fileName) =>
        TypedResults.File(
            Encoding.UTF8.GetBytes(HtmlReport.Render(content with { Tool = "the GrpcBestPractices gateway", ColourOrder = [.. StrategyList.Names, .. ContenderList.Names] })),
            "text/html; charset=utf-8",
            fileName);

    private static async Task<IResult> ExportAsync(Guid id, string? format, RunCoordinator coordinator, IRunStore store, IOptions<JsonOptions> answers)
    {
        format = string.IsNullOrEmpty(format) ? (string)Format.Default! : format.ToLowerInvariant();
        if (!Format.Allowed!.Contains(format))
        {
            return ProblemResponses.InvalidParameters($"format was '{Excerpt.Of(format)}'; it must be one of: {string.Join(", ", Format.Allowed!)} (default {Format.Default}).");
        }

        var record = coordinator.FindRun(id)?.Record ?? await store.GetAsync(id);
        if (record is null)
        {
            return ProblemResponses.NoSuchRun(id);
        }

        var fileName = $"run-{record.Plan.Strategy}-{record.Id}.{format}";
        return format == "csv"
            ? TypedResults.File(Encoding.UTF8.GetBytes(ToCsv(record)), "text/csv; charset=utf-8", fileName)
            // The shape of GET /api/runs/{id}, its plan's words and the server's status lines included.
            : TypedResults.File(JsonSerializer.SerializeToUtf8Bytes(record, answers.Value.SerializerOptions), "application/json; charset=utf-8", fileName);
    }

    /// <summary>One line per figure under the header, then one line per histogram bin, all in the same five columns.</summary>
    public static string ToCsv(RunRecord run)
    {
        var csv = new StringBuilder("section,figure,value,unit,fromMs,toMs\n");
        void Line(string section, string figure, object? value, string unit = "", double? fromMs = null, double? toMs = null) =>
            csv.AppendJoin(',', Field(section), Field(figure), Field(value), Field(unit), Field(fromMs), Field(toMs)).Append('\n');

        Line("run", "id", run.Id);
        Line("run", "strategy", run.Plan.Strategy);
        Line("run", "state", run.State);
        Line("run", "startedAt", run.StartedAt.ToString("O", CultureInfo.InvariantCulture));
        Line("run", "finishedAt", run.FinishedAt?.ToString("O", CultureInfo.InvariantCulture));
        Line("run", "suiteId", run.SuiteId);
        Line("run", "error", run.Error);
        Line("plan", "count", run.Plan.Count, "calls");
        Line("plan", "concurrency", run.Plan.Concurrency, "calls");
        Line("plan", "warmup", run.Plan.Warmup, "calls");
        var builtIn = run.Plan.Called as BuiltInCall ?? new BuiltInCall();
        Line("plan", "delayMs", builtIn.DelayMs, "ms");
        Line("plan", "payloadBytes", builtIn.PayloadBytes, "bytes");
        if (run.Stats is not { } stats)
        {
            return csv.ToString();
        }

        Line("stats", "wallTimeMs", stats.WallTimeMs, "ms");
        Line("stats", "throughputPerSecond", stats.ThroughputPerSecond, "calls/s");
        Line("stats", "calls", stats.Calls, "calls");
        Line("stats", "succeeded", stats.Succeeded, "calls");
        Line("stats", "failed", stats.Failed, "calls");
        Line("stats", "firstCallMs", stats.FirstCallMs, "ms");
        Line("stats", "connectionsUsed", stats.ConnectionsUsed, "connections");
        Line("stats", "allocatedBytesPerCall", stats.AllocatedBytesPerCall, "bytes");
        Line("stats", "warmupCalls", stats.WarmupCalls, "calls");
        Line("stats", "warmupMs", stats.WarmupMs, "ms");
        Line("service", "cpuMeanPercent", stats.Service.CpuMeanPercent, "%");
        Line("service", "cpuMaxPercent", stats.Service.CpuMaxPercent, "%");
        Line("service", "memoryMaxMegabytes", stats.Service.MemoryMaxMegabytes, "MiB");
        Line("service", "samples", stats.Service.Samples, "samples");
        if (stats.Latency is { } latency)
        {
            Line("latency", "minMs", latency.MinMs, "ms");
            Line("latency", "meanMs", latency.MeanMs, "ms");
            Line("latency", "stdDevMs", latency.StdDevMs, "ms");
            Line("latency", "p50Ms", latency.P50Ms, "ms");
            Line("latency", "p90Ms", latency.P90Ms, "ms");
            Line("latency", "p99Ms", latency.P99Ms, "ms");
            Line("latency", "p999Ms", latency.P999Ms, "ms");
            Line("latency", "maxMs", latency.MaxMs, "ms");
        }

        foreach (var (status, count) in stats.StatusCounts)
        {
            Line("statusCounts", status, count, "calls");
        }

        foreach (var bin in stats.Histogram)
        {
            Line("histogram", "bin", bin.Count, "calls", bin.FromMs, bin.ToMs);
        }

        return csv.ToString();
    }

    private static string Field(object? value)
    {
        var text = value switch
        {
            null => string.Empty,
            double number => number.ToString("R", CultureInfo.InvariantCulture),
            IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
            _ => value.ToString() ?? string.Empty,
        };
        return text.AsSpan().IndexOfAny(",\"\r\n") >= 0 ? $"\"{text.Replace("\"", "\"\"", StringComparison.Ordinal)}\"" : text;
    }
}
