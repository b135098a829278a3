using System.ComponentModel;
using System.ComponentModel.DataAnnotations;
using System.Globalization;
using System.Reflection;
using System.Text;
using System.Text.Json;
using ApiGateway.Agents;
using ApiGateway.Errors;
using ApiGateway.OpenApi;
using ApiGateway.Security;
using LoadEngine.Checkup;
using LoadEngine.Lessons;
using LoadEngine.Protocols;
using Microsoft.AspNetCore.Http.Metadata;
using Microsoft.AspNetCore.WebUtilities;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Extensions.Options;

namespace ApiGateway.Endpoints;

/// <summary>The body of POST /api/runs: the typed plan, and the agents to share it among.</summary>
public sealed record RunRequestBody([property: Range(1, AgentShares.MaxAgents)] int? Agents) : RunPlanInput((string?)null, null);

/// <summary>The body of POST /api/suites: a run's plan for every strategy, or for those listed; it holds only <see cref="RunRequestReader.Suite"/>'s fields.</summary>
public sealed record SuiteRequestBody([property: MaxLength(InputBounds.MaxNames)] IReadOnlyList<string>? Strategies) : RunPlanInput((string?)null, null);

/// <summary>
/// The body of POST /api/comparisons: a workload, the contenders to run it (default: every one that can), how many
/// repetitions, the load, and the settings the workload takes; it holds only <see cref="RunRequestReader.Comparison"/>'s fields.
/// </summary>
public sealed record ComparisonRequestBody(
    [property: MaxLength(InputBounds.MaxNames)] IReadOnlyList<string>? Contenders,
    [property: Range(1, PlanExpansion.MaxRepetitions)] int? Repetitions) : RunPlanInput((string?)null, null);

/// <summary>
/// The body of POST /api/lessons/{id}/experiments; it may be left out. With target, call and data (as POST /api/runs takes
/// them) the lesson runs on that unary method; streamCall names the bidirectional method the streaming lesson uses.
/// </summary>
public sealed record ExperimentRequestBody(
    [property: Range(1, LessonList.MaxRepetitions)] int? Repetitions,
    [property: StringLength(InputBounds.MaxCallLength)] string? StreamCall) : RunPlanInput((string?)null, null);

/// <summary>
/// The body of POST /api/checkups: the method to check (target, call and data as POST /api/runs takes them), the
/// bidirectional method the streaming measurement uses, the time budget the measurements share, and the calls the
/// user's client keeps in flight (the load its savings are said at).
/// </summary>
public sealed record CheckupRequestBody(
    [property: StringLength(InputBounds.MaxCallLength)] string? StreamCall,
    [property: Range(CheckupPlan.MinBudgetSeconds, CheckupPlan.MaxBudgetSeconds), DefaultValue(CheckupPlan.DefaultBudgetSeconds)] double? BudgetSeconds,
    [property: PlanLimit(1, nameof(PlanLimits.MaxConcurrency)), DefaultValue(CheckupPlan.DefaultInFlight)] int? InFlight) : RunPlanInput((string?)null, null);

/// <summary>What one kind of body may hold, and the list of names it takes (a suite's strategies, a comparison's contenders).</summary>
public sealed record RequestShape(Type Body, string What, IReadOnlyList<string> Fields, string? NamesField = null, string NamesOf = "", string NamesExample = "");

/// <summary>
/// The bodies ASP.NET Core binds with the gateway's JSON options (<see cref="Bind"/>), and the one sentence a body that
/// does not bind gets (<see cref="Refusal"/>), read from the exception the binding throws.
/// </summary>
public static class RunRequestReader
{
    // A run (not a suite) may be shared among load agents.
    public static RequestShape Run { get; } = new(typeof(RunRequestBody), "run", [.. RunPlanText.Fields, "agents"]);

    // A suite runs strategies; workloads are compared by POST /api/comparisons.
    public static RequestShape Suite { get; } = new(
        typeof(SuiteRequestBody), "run", [.. RunPlanText.Fields.Except(WorkloadRules.Fields).Where(name => name != "strategy"), "strategies"],
        "strategies", "strategy", "[\"client-wrapper\", \"streaming-call\"]");

    // A comparison names its workload and contenders; each contender's four fields come from its name.
    public static RequestShape Comparison { get; } = new(
        typeof(ComparisonRequestBody), "comparison",
        ["workload", "contenders", "repetitions", "count", "duration", "load", "concurrency", "rate", "warmup", .. WorkloadParameters.All.Select(parameter => parameter.Name)],
        "contenders", "contender", "[\"grpc-h2-cleartext\", \"rest-stj-h1-cleartext\"]");

    public static RequestShape Experiment { get; } = new(typeof(ExperimentRequestBody), "experiment", ["repetitions", "target", "call", "data", "streamCall"]);

    public static RequestShape Checkup { get; } = new(typeof(CheckupRequestBody), "checkup", ["target", "call", "data", "streamCall", "budgetSeconds", "inFlight"]);

    public static IReadOnlyDictionary<Type, RequestShape> Shapes { get; } = new[] { Run, Suite, Comparison, Experiment, Checkup }.ToDictionary(shape => shape.Body);

    /// <summary>The gateway's JSON options read plans as <see cref="RunPlanText"/> does, each body holding only its shape's fields.</summary>
    public static IServiceCollection AddRequestBodies(this IServiceCollection services) =>
        services.ConfigureHttpJsonOptions(options => RunPlanText.Bind(options.SerializerOptions, Shapes.ToDictionary(pair => pair.Key, pair => pair.Value.Fields)))
            // A body that does not bind is thrown, so the exception handler answers it with a sentence rather than a bare 400.
            .Configure<RouteHandlerOptions>(options => options.ThrowOnBadRequest = true);

    /// <summary>The sentence for a body <paramref name="shape"/> could not bind; null when what went wrong was not the body's JSON.</summary>
    public static string? Refusal(Microsoft.AspNetCore.Http.BadHttpRequestException bad, RequestShape shape, PlanLimits limits)
    {
        const string Unmapped = "The JSON property '";
        if (bad.InnerException is not JsonException unbound)
        {
            return null;
        }

        var field = unbound.Path?.TrimStart('$', '.').Split('.', '[')[0] ?? "";
        // A number of the body's own (a plan's are RunPlanText's to word) says its range as a plan's setting does.
        var own = shape.Body.GetProperty(field, BindingFlags.Public | BindingFlags.Instance | BindingFlags.IgnoreCase | BindingFlags.DeclaredOnly) is { } property
            ? PlanSetting.Of(property, limits)
            : null;
        return unbound switch
        {
            // The parser leaves strings as they came; reading one that is not valid UTF-8, or holds half a surrogate pair, throws.
            { InnerException: InvalidOperationException { InnerException: null or DecoderFallbackException } notUnicode } =>
                $"The body must be UTF-8 JSON whose strings are valid Unicode; it could not be read: {notUnicode.Message}",
            _ when unbound.Message.StartsWith(Unmapped, StringComparison.Ordinal) && unbound.Message.LastIndexOf("' could not be mapped", StringComparison.Ordinal) is > 0 and var end =>
                unbound.Message[Unmapped.Length..end] is var name && name.Contains('\uFFFD', StringComparison.Ordinal)
                    ? $"The body must be UTF-8 JSON whose strings are valid Unicode; it could not be read: a field's name is not valid UTF-8."
                    : NotASetting(shape, name),
            RunPlanText.RefusedValue { Sentence: null } when field == shape.NamesField => $"{shape.NamesField} must be an array of {shape.NamesOf} names, e.g. {shape.NamesExample}.",
            RunPlanText.RefusedValue { Sentence: null, Text: var text } when own is not null => own.Refused(text),
            _ => RunPlanText.Refusal(unbound, limits) ?? NotAnObject(unbound.Message),
        };
    }

    /// <summary>A body left out, or one that is not a JSON object.</summary>
    public static string NotAnObject(string why) =>
        $"The body must be a JSON object such as {{\"strategy\": \"client-wrapper\", \"count\": 1000}}; it could not be read: {why}";

    /// <summary>The names a suite or comparison lists, within their bound; else the sentence that refuses them.</summary>
    public static bool TryNames(RequestShape shape, IReadOnlyList<string>? names, out string error)
    {
        error = (names is null ? null : InputBounds.Names(shape.NamesField!, names)) ?? string.Empty;
        return error.Length == 0;
    }

    public static string NotASetting(RequestShape shape, string name) => $"'{Excerpt.Of(name)}' is not a {shape.What} setting; the body may hold: {string.Join(", ", shape.Fields)}.";

    /// <summary>
    /// Documents a route that reads <paramref name="shape"/> from its JSON body: no query parameters, a 400 for a field it
    /// does not hold, a 413 for a body over Kestrel's limit and a 415 for a body that is not sent as JSON (the exception
    /// handler's answers).
    /// </summary>
    public static RouteHandlerBuilder WithBody(this RouteHandlerBuilder route, RequestShape shape, string path, IEndpointRouteBuilder app, params RouteParameter[] inPath)
    {
        var limit = app.ServiceProvider.GetRequiredService<IOptions<KestrelServerOptions>>().Value.Limits.MaxRequestBodySize;
        return route.WithParameters(RouteParameters.Body(shape.What, inPath))
            .ProducesProblem(ProblemResponses.InvalidParameters(NotASetting(shape, "concurency")))
            .ProducesProblem(new ProblemDetails
            {
                Status = StatusCodes.Status415UnsupportedMediaType, Title = "Unsupported Media Type", Detail = ProblemResponses.UnsupportedMediaType("text/plain", path),
            })
            .ProducesProblem(UnexpectedProblemHandler.BodyTooLarge(
                $"Request body too large. The max request body size is {limit?.ToString(CultureInfo.InvariantCulture) ?? "unlimited"} bytes."));
    }

    /// <summary>
    /// A plan's body is read whole before it is bound: what Kestrel refuses while it is read (a body over its limit, one sent
    /// too slowly, bad chunked framing) is then its exception, which the exception handler words, rather than the bare
    /// status binding would set. The buffer is the body Kestrel's limit allows, as the parse held before.
    /// </summary>
    public static WebApplication UseRequestBodies(this WebApplication app)
    {
        app.Use(async (context, next) =>
        {
            if (ShapeOf(context.GetEndpoint()) is not null)
            {
                // A page on another site is refused before its body is read: the route's own filter runs only after binding.
                if (SameOrigin.ForeignSender(context.Request) is { } sender)
                {
                    await SameOrigin.Refused(context.Request, sender).ExecuteAsync(context);
                    return;
                }

                context.Request.EnableBuffering();
                await context.Request.Body.DrainAsync(context.RequestAborted);
                context.Request.Body.Position = 0;
            }

            await next(context);
        });
        return app;
    }

    /// <summary>The shape of the body <paramref name="endpoint"/> binds, if it binds one.</summary>
    public static RequestShape? ShapeOf(Endpoint? endpoint) =>
        endpoint?.Metadata.GetMetadata<IAcceptsMetadata>()?.RequestType is { } body && Shapes.TryGetValue(body, out var shape) ? shape : null;
}
