using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.Mvc;

namespace ApiGateway.OpenApi;

/// <summary>An answer an endpoint can give, made by the same helper that makes it at run time, shown as the document's example.</summary>
public sealed record ProblemExample(ProblemDetails Problem);

public static class ProblemExampleExtensions
{
    /// <summary>Documents the problem's status as application/problem+json, with the problem itself as the example.</summary>
    public static RouteHandlerBuilder ProducesProblem(this RouteHandlerBuilder route, ProblemHttpResult example) =>
        route.WithMetadata(new ProblemExample(example.ProblemDetails)).ProducesProblem(example.StatusCode);

    public static RouteHandlerBuilder ProducesProblem(this RouteHandlerBuilder route, ProblemDetails example) =>
        route.ProducesProblem(TypedResults.Problem(example));
}
