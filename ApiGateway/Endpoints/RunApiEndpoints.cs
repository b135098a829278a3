using System.Net.ServerSentEvents;
using System.Runtime.CompilerServices;
using ApiGateway.Agents;
using ApiGateway.Configuration;
using ApiGateway.Errors;
using ApiGateway.History;
using ApiGateway.OpenApi;
using ApiGateway.Runs;
using LoadEngine;
using LoadEngine.Protocols;
using LoadEngine.Strategies;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Options;
using ApiGateway.Security;
using ApiGateway.Targets;

namespace ApiGateway.Endpoints;

/// <summary>The resource API the dashboard is built on: strategies, runs (started in the background), their live events, history and comparisons, and suites.</summary>
public static class RunApiEndpoints
{
    private static readonly Paging Page = new("runs", 500, 50);

    private static readonly RouteParameters ListParameters = new(
    [
        RouteParameter.OneOf("strategy", [.. StrategyList.Names, .. ContenderList.Names], null,
            "Only that strategy's runs (or a contender's, for workload runs). Left out, every run."),
        Page.Limit,
        Page.Offset,
    ]);

    private static readonly string[] OneStreamKinds = ["bidi-streaming"];

    private static readonly string[] AnyKind = ["unary", "server-streaming", "client-streaming", "bidi-streaming"];

    private static readonly RouteParameters CompareParameters = new(
    [
        new RouteParameter("baseline", typeof(Guid), "The id of the finished run to compare against, from GET /api/runs.") { Required = true, Example = ProblemResponses.ExampleId },
        new RouteParameter("candidate", typeof(Guid), "The id of the finished run compared with it; ratios are candidate ÷ baseline.") { Required = true, Example = ProblemResponses.ExampleId },
    ]);

    internal static readonly RouteParameters OneRun = new([RouteParameter.RunId("run")]);

    internal static readonly RouteParameters OneSuite = new([RouteParameter.RunId("suite")]);

    public static IEndpointRouteBuilder MapRunApi(this IEndpointRouteBuilder app)
    {
        var limits = LimitsOf(app);
        var api = app.MapGroup("/api");

        api.MapGet("/strategies", () => StrategyList.All.Select(strategy => new
            {
                strategy.Info.Name, strategy.Info.Group, strategy.Info.Route, strategy.Info.Summary, strategy.Info.Lesson, strategy.Info.Link,
                DefaultLoad = RunPlanRules.Name(strategy.Info.DefaultLoad),
                // Which kinds of a target's method it can call (ghz's words): the page says why a suite left a strategy out.
                MethodKinds = strategy.Info.Shape == CallShape.OneStream ? OneStreamKinds : AnyKind,
            }))
            .WithTags("Strategies").WithSummary("Every client strategy: its name, chapter route, lesson, the matching section of Microsoft's guide, the load it runs under by default, " +
                "and the kinds of a target's method it can call.")
            .WithParameters(RouteParameters.None);

        var runs = api.MapGroup("/runs").WithTags("Runs");
        runs.MapPost("/", StartRunAsync).SameOriginOnly()
            .Accepts<RunRequestBody>("application/json")
            .WithSummary("Start a run in the background; 202 with its id and Location.")
            .WithDescription($"Body: {{\"strategy\": \"client-wrapper\", \"count\": 1000, \"warmup\": 100}}, or an arrival rate: " +
                $"{{\"strategy\": \"multiple-connections\", \"load\": \"open\", \"rate\": 2000, \"duration\": 10, \"thresholds\": [\"p99 < 5ms\", \"errorRate < 1%\"]}}, " +
                $"or a ramp: {{\"strategy\": \"multiple-connections\", \"load\": \"ramping\", \"stages\": [{{\"duration\": 10, \"target\": 5000}}, {{\"duration\": 20, \"target\": 5000}}]}}. " +
                $"{RunParameters.Describe(limits)} Per-call statuses are not kept for background runs.\n\n" +
                $"agents (1–{AgentShares.MaxAgents}) shares a strategy run among that many load agents (./loadtest --agent, or the Kubernetes Indexed Job in deploy/k8s): " +
                "each runs count ÷ agents calls (or rate ÷ agents) and writes its exact histogram to the shared history; the run waits for them, answers with the " +
                "command that starts each agent, and ends merged (percentiles from the merged histogram), or Partial naming a share that is missing. " +
                "Distributed runs make no calls here: they take none of the Runs:MaxRunsInFlight slots but have their own limit, Agents:MaxRunsInFlight " +
                "(429 naming it).\n\n" +
                DescribeWorkloadRuns())
            .WithBody(RunRequestReader.Run, "/api/runs", app)
            .ProducesProblem(ProblemResponses.OverMemoryBudgetExample(limits.PlanLimits().MaxRunMemoryBytes, keepsStatuses: false))
            .ProducesProblem(ProblemResponses.TooManyRuns(limits.MaxRunsInFlight));
        runs.MapGet("/", ListRunsAsync)
            .WithSummary("The run history, newest first.")
            .WithDescription(ListParameters.Describe())
            .WithParameters(ListParameters);
        runs.MapGet("/compare", CompareAsync)
            .WithSummary("Two finished runs side by side, with ratios (candidate ÷ baseline).")
            .WithDescription(CompareParameters.Describe())
            .WithParameters(CompareParameters)
            .ProducesProblem(ProblemResponses.NoSuchRun(ProblemResponses.ExampleId));
        runs.MapGet("/{id:guid}", GetRunAsync).WithSummary("One run: its plan, state, statistics, and live progress while it runs.")
            .WithParameters(OneRun).ProducesProblem(ProblemResponses.NoSuchRun(ProblemResponses.ExampleId));
        runs.MapDelete("/{id:guid}", DeleteRunAsync).SameOriginOnly().WithSummary("Delete a run from the history (a running run is cancelled first).")
            .WithParameters(OneRun).ProducesProblem(ProblemResponses.NoSuchRun(ProblemResponses.ExampleId));
        runs.MapPost("/{id:guid}/cancel", CancelRunAsync).SameOriginOnly().WithSummary("Cancel a running run; it is stored as cancelled with what it measured so far.")
            .WithParameters(OneRun).ProducesProblem(ProblemResponses.NoSuchRun(ProblemResponses.ExampleId));
        runs.MapGet("/{id:guid}/events", RunEventsAsync)
            .WithSummary("Server-Sent Events: 'progress' ten times a second (completed, errors, current throughput, rolling p50/p99; late and dropped sends under an arrival rate), then one 'final' with the stored run.")
            .WithParameters(OneRun).ProducesProblem(ProblemResponses.NoSuchRun(ProblemResponses.ExampleId));

        var suites = api.MapGroup("/suites").WithTags("Suites");
        suites.MapPost("/", StartSuiteAsync).SameOriginOnly()
            .Accepts<SuiteRequestBody>("application/json")
            .WithSummary("Run every strategy (or those listed in 'strategies') in turn with the same plan, and compare them.")
            .WithDescription($"Body: {{\"count\": 1000, \"strategies\": [\"client-wrapper\", \"streaming-call\"]}} (strategies optional: all). " +
                "Each strategy runs under its own load unless load names one; a concurrency then applies to those whose load uses it. " + RunParameters.Describe(limits))
            .WithBody(RunRequestReader.Suite, "/api/suites", app)
            .ProducesProblem(ProblemResponses.OverMemoryBudgetExample(limits.PlanLimits().MaxRunMemoryBytes, keepsStatuses: false))
            .ProducesProblem(ProblemResponses.TooManyRuns(limits.MaxRunsInFlight));
        suites.MapGet("/{id:guid}", GetSuiteAsync).WithSummary("A suite, its runs, and each strategy's wall time against the fastest.")
            .WithParameters(OneSuite).ProducesProblem(ProblemResponses.NoSuchSuite(ProblemResponses.ExampleId));
        suites.MapPost("/{id:guid}/cancel", CancelSuiteAsync).SameOriginOnly().WithSummary("Cancel a suite: the current run is cancelled and no further run starts.")
            .WithParameters(OneSuite).ProducesProblem(ProblemResponses.NoSuchSuite(ProblemResponses.ExampleId));
        suites.MapGet("/{id:guid}/events", SuiteEventsAsync)
            .WithSummary("Server-Sent Events: 'progress' of the current run (with its strategy), 'run' when each run ends, then 'final' with the suite.")
            .WithParameters(OneSuite).ProducesProblem(ProblemResponses.NoSuchSuite(ProblemResponses.ExampleId));
        return app;
    }

    /// <summary>The workload runs' fields, from the workload and contender lists.</summary>
    private static string DescribeWorkloadRuns() =>
        "Or a workload of the published gRPC-vs-REST benchmarks instead of a strategy: {\"workload\": \"big-list\", \"protocol\": \"rest\", " +
        "\"serializer\": \"system-text-json\", \"httpVersion\": \"1.1\", \"security\": \"tls\", \"count\": 100}. " +
        $"workload: {string.Join(", ", WorkloadList.Ids)}. protocol: {WireNames<ApiProtocol>.Listed}; serializer: {WireNames<PayloadSerializer>.Listed} " +
        $"(default protobuf for gRPC, system-text-json for REST); httpVersion: {WireNames<WireVersion>.Listed} (default 2 for gRPC, 1.1 for REST); " +
        $"security: {WireNames<WireSecurity>.Listed} (default cleartext). {ContenderList.Allowed} The run's strategy is its contender's name, e.g. rest-stj-h1-tls. " +
        "Settings some workloads take: " +
        string.Join("; ", WorkloadParameters.All.Select(parameter =>
            $"{parameter.Name} ({string.Join(", ", WorkloadList.All.Where(workload => workload.Takes(parameter)).Select(workload => workload.Id))}): {parameter.What} " +
            $"Allowed: {parameter.Allowed}; default {parameter.Default}")) +
        ". count defaults to the workload's own; delayMs and payloadBytes apply to strategies only. The run reports stats.bytesSentPerCall, " +
        "stats.bytesReceivedPerCall (the client's sockets), stats.serviceAllocatedBytesPerCall and stats.serverSaw (the HTTP and TLS versions the service saw). " +
        "GET /api/workloads lists the workloads and the contenders this gateway can run.";

    internal static RunLimitsOptions LimitsOf(IEndpointRouteBuilder app) => app.ServiceProvider.GetRequiredService<IOptions<RunLimitsOptions>>().Value;

    private static async Task<Results<Accepted<RunRecord>, ProblemHttpResult>> StartRunAsync(
        RunRequestBody? body, HttpContext http, RunCoordinator coordinator, [FromServices] AgentRuns agentRuns, IOptions<RunLimitsOptions> limits, IOptions<AgentOptions> agentOptions,
        IOptions<EngineOptions> engine, TargetPlans targets)
    {
        // Nobody waits on a background run's answer, so per-call statuses would only hold memory.
        if (!TryPlan(body, out var error) || !KeepsNoStatuses(body!, out error) || !targets.TryCheck(body!, out var input, out error)
            || !RunPlanRules.TryCreate(input with { IncludeStatuses = false }, limits.Value.PlanLimits(), StrategyList.Names, out var plan, out error)
            || !RunPlanRules.Whole(body!.Agents, "agents", 1, AgentShares.MaxAgents, null, out var agents, out error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        // A call of a target's method carries the target's descriptors, so the run (or its agents) need nothing more.
        var (described, unfit) = await targets.DescribeAsync([plan], strategiesAsked: true, http.RequestAborted);
        if (unfit is not null)
        {
            return unfit;
        }

        plan = described[0];
        if (agents is not null)
        {
            if (AgentShares.Problem(plan, agents.Value) is { } unshareable)
            {
                return ProblemResponses.InvalidParameters(unshareable);
            }

            plan = plan with { Agents = agents };
        }

        // A contender whose listener (or certificate) this gateway lacks is refused before it runs, naming the setting.
        if (plan.Workload?.Contender is { } contender && !WorkloadTargets.Check(contender, engine.Value, out error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        if (await coordinator.StartRunAsync(plan) is not { } run)
        {
            return plan.Agents is null
                ? ProblemResponses.TooManyRuns(http, limits.Value.MaxRunsInFlight)
                : ProblemResponses.TooManyDistributedRuns(http, agentOptions.Value.MaxRunsInFlight);
        }

        return TypedResults.Accepted($"/api/runs/{run.Id}", await WithAgentsAsync(run.Record with { Progress = run.Live.Latest }, agentRuns));
    }

    /// <summary>A distributed run with each agent's share and report, read from the shared store (they are not kept with the run).</summary>
    private static async Task<RunRecord> WithAgentsAsync(RunRecord run, AgentRuns agentRuns) =>
        run.Plan.Agents is null || run.AgentReports is not null ? run : run with { AgentReports = await agentRuns.ReportsAsync(run) };

    /// <summary>A body was sent: one left out (or JSON null) binds to nothing.</summary>
    internal static bool TryPlan(object? body, out string error)
    {
        error = body is null ? RunRequestReader.NotAnObject("it was empty.") : string.Empty;
        return body is not null;
    }

    /// <summary>A background run keeps no per-call statuses, so asking for them is refused rather than ignored.</summary>
    private static bool KeepsNoStatuses(RunPlanInput input, out string error)
    {
        error = input.IncludeStatuses is true
            ? "includeStatuses was 'true'; a background run keeps no per-call statuses. Leave it out, or ask a chapter route " +
                "(GET /Performance/client-wrapper/{count}) for them."
            : string.Empty;
        return error.Length == 0;
    }

    private static async Task<Results<Ok<RunPage>, ProblemHttpResult>> ListRunsAsync(string? strategy, string? limit, string? offset, IRunStore store)
    {
        if (strategy is not null && !StrategyList.Names.Contains(strategy) && !ContenderList.Names.Contains(strategy))
        {
            return ProblemResponses.InvalidParameters(
                $"strategy was '{Excerpt.Of(strategy)}'; it must be one of: {string.Join(", ", StrategyList.Names)}, or a workload run's contender: {string.Join(", ", ContenderList.Names)}.");
        }

        if (!Page.TryRead(limit, offset, out var take, out var skip, out var error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        var total = await store.CountAsync(strategy);
        var page = await store.ListAsync(strategy, take, skip);
        return TypedResults.Ok(new RunPage(total, take, skip, page));
    }

    private static async Task<Results<Ok<RunRecord>, ProblemHttpResult>> GetRunAsync(Guid id, RunCoordinator coordinator, IRunStore store, [FromServices] AgentRuns agentRuns)
    {
        if (coordinator.FindRun(id) is { } active)
        {
            return TypedResults.Ok(await WithAgentsAsync(active.Record with { Progress = active.Live.Latest }, agentRuns));
        }

        return await store.GetAsync(id) is { } record ? TypedResults.Ok(await WithAgentsAsync(record, agentRuns)) : ProblemResponses.NoSuchRun(id);
    }

    private static async Task<Results<NoContent, ProblemHttpResult>> DeleteRunAsync(Guid id, RunCoordinator coordinator, IRunStore store, [FromServices] AgentRuns agentRuns)
    {
        if (coordinator.FindRun(id) is { } active)
        {
            active.Stop(RunState.Cancelled, "Cancelled to be deleted.");
            await active.Completion;
        }

        if (!await store.DeleteAsync(id))
        {
            return ProblemResponses.NoSuchRun(id);
        }

        // A distributed run's agents' figures go with it (a run of this gateway's own has none).
        await agentRuns.Store.DeleteRunAsync(id);
        return TypedResults.NoContent();
    }

    private static async Task<Results<Ok<RunRecord>, ProblemHttpResult>> CancelRunAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        if (coordinator.FindRun(id) is { } active)
        {
            active.Stop(RunState.Cancelled, "Cancelled on request.");
            return TypedResults.Ok(await active.Completion);
        }

        // Already finished: cancelling is a no-op, and the answer says how it ended.
        return await store.GetAsync(id) is { } record ? TypedResults.Ok(record) : ProblemResponses.NoSuchRun(id);
    }

    private static async Task<Results<Ok<RunComparison>, ProblemHttpResult>> CompareAsync(string? baseline, string? candidate, IRunStore store)
    {
        if (!Guid.TryParse(baseline, out var baselineId) || !Guid.TryParse(candidate, out var candidateId))
        {
            return ProblemResponses.InvalidParameters($"baseline was '{Excerpt.Of(baseline)}' and candidate '{Excerpt.Of(candidate)}'; both must be run ids (GUIDs) from /api/runs.");
        }

        var (first, second) = (await store.GetAsync(baselineId), await store.GetAsync(candidateId));
        if (first is null || second is null)
        {
            return ProblemResponses.NoSuchRun(first is null ? baselineId : candidateId);
        }

        var unfinished = new[] { first, second }.FirstOrDefault(run => run.Stats is null);
        return unfinished is null
            ? TypedResults.Ok(RunComparison.Of(first, second))
            : ProblemResponses.InvalidParameters($"Run {unfinished.Id} has no statistics to compare (it is {unfinished.State}); compare finished runs.");
    }

    private static async Task<Results<ServerSentEventsResult<object>, ProblemHttpResult>> RunEventsAsync(
        Guid id, RunCoordinator coordinator, IRunStore store, [FromServices] AgentRuns agentRuns, EventViewers viewers, HttpContext http, CancellationToken cancellation)
    {
        var active = coordinator.FindRun(id);
        var stored = active is null && await store.GetAsync(id) is { } ended ? await WithAgentsAsync(ended, agentRuns) : null;
        if (active is null && stored is null)
        {
            return ProblemResponses.NoSuchRun(id);
        }

        return viewers.Stream(http, RunEvents(active, stored, cancellation));
    }

    /// <summary>Each snapshot the engine pushes, as it pushes it, then the stored run.</summary>
    private static async IAsyncEnumerable<SseItem<object>> RunEvents(ActiveRun? active, RunRecord? stored, [EnumeratorCancellation] CancellationToken cancellation)
    {
        if (active is not null)
        {
            await foreach (var progress in active.Live.FollowAsync(cancellation))
            {
                yield return new SseItem<object>(progress, "progress");
            }

            stored = await active.Completion.WaitAsync(cancellation);
        }

        yield return new SseItem<object>(stored!, "final");
    }

    private static async Task<Results<Accepted<SuiteView>, ProblemHttpResult>> StartSuiteAsync(
        SuiteRequestBody? body, HttpContext http, RunCoordinator coordinator, IOptions<RunLimitsOptions> limits, TargetPlans targets)
    {
        if (!TryPlan(body, out var error) || !RunRequestReader.TryNames(RunRequestReader.Suite, body!.Strategies, out error)
            || !KeepsNoStatuses(body, out error) || !targets.TryCheck(body, out var input, out error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        if (!PlanExpansion.TrySuite(input with { IncludeStatuses = false }, body.Strategies, limits.Value.PlanLimits(), out var plans, out error))
        {
            return ProblemResponses.InvalidParameters(error);
        }

        var (described, unfit) = await targets.DescribeAsync(plans, strategiesAsked: body.Strategies is not null, http.RequestAborted);
        if (unfit is not null)
        {
            return unfit;
        }

        if (await coordinator.StartSuiteAsync(described) is not { } suite)
        {
            return ProblemResponses.TooManyRuns(http, limits.Value.MaxRunsInFlight);
        }

        return TypedResults.Accepted($"/api/suites/{suite.Record.Id}", SuiteView.From(suite.Record, [], suite));
    }

    private static async Task<Results<Ok<SuiteView>, ProblemHttpResult>> GetSuiteAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        var active = coordinator.FindSuite(id);
        var suite = active?.Record ?? await store.GetSuiteAsync(id);
        return suite is null ? ProblemResponses.NoSuchSuite(id) : TypedResults.Ok(SuiteView.From(suite, await store.ListSuiteRunsAsync(id), active));
    }

    private static async Task<Results<Ok<SuiteView>, ProblemHttpResult>> CancelSuiteAsync(Guid id, RunCoordinator coordinator, IRunStore store)
    {
        if (coordinator.FindSuite(id) is { } active)
        {
            active.Stop(RunState.Cancelled, "The suite was cancelled on request.");
            var ended = await active.Completion;
            return TypedResults.Ok(SuiteView.From(ended, await store.ListSuiteRunsAsync(id), null));
        }

        return await GetSuiteAsync(id, coordinator, store);
    }

    private static async Task<Results<ServerSentEventsResult<object>, ProblemHttpResult>> SuiteEventsAsync(
        Guid id, RunCoordinator coordinator, IRunStore store, EventViewers viewers, HttpContext http, CancellationToken cancellation)
    {
        var active = coordinator.FindSuite(id);
        if (active is null && await store.GetSuiteAsync(id, cancellation) is null)
        {
            return ProblemResponses.NoSuchSuite(id);
        }

        return viewers.Stream(http, SuiteEvents(id, active, store, (suite, runs) => SuiteView.From(suite, runs, null), cancellation));
    }

    /// <summary>
    /// The suite's events as it pushes them: progress of the current run, each run as it ends, then the suite as
    /// <paramref name="final"/> shows it (a suite, or a comparison). Runs that ended before this follower came (or before
    /// the suite was found running) come from the history first, so every run of the suite is reported once.
    /// </summary>
    public static async IAsyncEnumerable<SseItem<object>> SuiteEvents(
        Guid id, ActiveSuite? active, IRunStore store, Func<SuiteRecord, IReadOnlyList<RunRecord>, object> final, [EnumeratorCancellation] CancellationToken cancellation)
    {
        var reported = new HashSet<Guid>();
        using (var events = active?.Events.Follow())
        {
            foreach (var run in await store.ListSuiteRunsAsync(id, cancellation))
            {
                if (run.State != RunState.Running && reported.Add(run.Id))
                {
                    yield return new SseItem<object>(run, "run");
                }
            }

            if (events is not null)
            {
                await foreach (var happened in events.Reader.ReadAllAsync(cancellation))
                {
                    switch (happened)
                    {
                        case SuiteRunProgress progress:
                            yield return new SseItem<object>(progress, "progress");
                            break;
                        case SuiteRunEnded { Run: var run } when reported.Add(run.Id):
                            yield return new SseItem<object>(run, "run");
                            break;
                    }
                }
            }
        }

        var ended = active is null ? await store.GetSuiteAsync(id, cancellation) : await active.Completion.WaitAsync(cancellation);
        var runs = await store.ListSuiteRunsAsync(id, cancellation);
        foreach (var run in runs.Where(run => run.State != RunState.Running && reported.Add(run.Id)))
        {
            yield return new SseItem<object>(run, "run");
        }

        yield return new SseItem<object>(final(ended!, runs), "final");
    }
}
