using ApiGateway.Endpoints;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;

namespace ApiGateway.Targets;

/// <summary>GET /api/targets: each configured target, how it is described, its methods and whether it can be reached now.</summary>
public static class TargetEndpoints
{
    private static readonly RouteParameters Parameters = new(
    [
        RouteParameter.OneOf("refresh", ["true", "false"], "false", "true describes every target again (its .proto files, protoset or reflection); otherwise a description is kept from the first time."),
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
        return app;
    }

    private static async Task<Results<Ok<TargetView[]>, ProblemHttpResult>> ListAsync(
        string? refresh, IOptions<TargetsOptions> targets, TargetDescriptions descriptions, CancellationToken cancellation)
    {
        if (refresh is not (null or "true" or "false"))
        {
            return Errors.ProblemResponses.InvalidParameters($"refresh was '{LoadEngine.Runs.Excerpt.Of(refresh)}'; it must be true (describe every target again) or false.");
        }

        return TypedResults.Ok(await Task.WhenAll(targets.Value.Names.Select(name =>
            ViewAsync(name, targets.Value.Targets.GetValueOrDefault(name), refresh == "true", descriptions, cancellation))));
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
