using ApiGateway.Endpoints;
using ApiGateway.Security;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ApiGateway.Targets;

/// <summary>
/// GET /api/targets: each configured target, how it is described, its methods and whether it can be reached now; POST
/// /api/targets/{name}/refresh describes one again (work: protoc and the compiler), guarded as starting work is.
/// </summary>
public static class TargetEndpoints
{
    private static readonly RouteParameters Parameters = new(
    [
        RouteParameter.OneOf("refresh", ["false"], "false", "A description is kept from the first time; POST /api/targets/{name}/refresh describes a target again."),
    ]);

    private static readonly RouteParameters RefreshParameters = new(
    [
        new RouteParameter("name", typeof(string), $"The target's name, as GET /api/targets lists it ({TargetsOptions.NameRule} characters).")
        {
            InPath = true, MaxLength = 64, Pattern = TargetsOptions.NamePattern, Example = TargetsOptions.BuiltIn,
        },
    ]);

    public static IEndpointRouteBuilder MapTargetEndpoints(this IEndpointRouteBuilder app)
    {
        app.MapGet("/api/targets", ListAsync)
            .WithTags("Targets")
            .WithSummary("The gRPC services runs may load: the built-in PerformanceService (performance) and each one under Targets:<name> in the gateway's configuration.")
            .WithDescription("Each target: name, address, how its methods are described (built-in, reflection, proto or protoset), whether it can be reached now " +
                "and, if not, why in one sentence, and its methods (call, kind, and the request's JSON with every field, to edit into a run's data). " +
                "Start a run on one with POST /api/runs {\"target\": \"inventory\", \"call\": \"inventory.Stock/Get\", \"data\": {\"sku\": \"A1\"}, \"strategy\": \"client-wrapper\"}. " +
                "Metadata and key files are never shown. " + Parameters.Describe())
            .WithParameters(Parameters);
        app.MapPost("/api/targets/{name}/refresh", RefreshAsync)
            .SameOriginOnly()
            .WithTags("Targets")
            .WithSummary("Describe one target again: its .proto files, protoset or server reflection, then protoc and the compiler.")
            .WithDescription("Answers the target as GET /api/targets lists it, with the new description or, when it could not be described, the sentence " +
                "why (the previous description is not kept then). A refresh already under way for the target is joined, not repeated. Describing is work " +
                "the gateway does on the target's word, so it is guarded as starting a run is: same origin, and beyond loopback a key. " + RefreshParameters.Describe())
            .WithParameters(RefreshParameters);
        return app;
    }

    private static async Task<Results<Ok<TargetView[]>, ProblemHttpResult>> ListAsync(
        string? refresh, IOptions<TargetsOptions> targets, TargetDescriptions descriptions, CancellationToken cancellation)
    {
        if (refresh is not (null or "false"))
        {
            return Errors.ProblemResponses.InvalidParameters(refresh == "true"
                ? "Describing a target again is work, so it is POST /api/targets/{name}/refresh; GET /api/targets lists the targets as described."
                : $"refresh was '{LoadEngine.Runs.Excerpt.Of(refresh)}'; GET /api/targets takes none (POST /api/targets/{{name}}/refresh describes a target again).");
        }

        return TypedResults.Ok(await Task.WhenAll(targets.Value.Names.Select(name =>
            ViewAsync(name, targets.Value.Targets.GetValueOrDefault(name), refresh: false, descriptions, cancellation))));
    }

    private static async Task<Results<Ok<TargetView>, ProblemHttpResult>> RefreshAsync(
        string name, IOptions<TargetsOptions> targets, TargetDescriptions descriptions, CancellationToken cancellation)
    {
        if (targets.Value.Find(name) is not { } configured)
        {
            return TypedResults.Problem(
                statusCode: StatusCodes.Status404NotFound,
                title: "No such target",
                detail: $"No target is configured as '{LoadEngine.Runs.Excerpt.Of(name)}'; the configured targets are: {string.Join(", ", targets.Value.Names)}.");
        }

        return TypedResults.Ok(await ViewAsync(configured, targets.Value.Targets.GetValueOrDefault(configured), refresh: true, descriptions, cancellation));
    }

    private static async Task<TargetView> ViewAsync(string name, TargetOptions? options, bool refresh, TargetDescriptions descriptions, CancellationToken cancellation)
    {
        var reaching = descriptions.UnreachableAsync(name, cancellation);
        var described = await descriptions.DescribeAsync(name, refresh, cancellation);
        var unreachable = await reaching;
        var methods = described.Target?.Methods.Select(method => new TargetMethod(method.Call, method.KindName, method.RequestTemplate)).ToList() ?? [];
        // The built-in target runs its chapter's call without a description; reflection only adds its other methods.
        var problem = unreachable ?? (options is null ? null : described.Problem);
        return new TargetView(name, descriptions.AddressOf(name), options?.DescribedBy ?? "built-in", options is null, unreachable is null, problem, methods);
    }
}
