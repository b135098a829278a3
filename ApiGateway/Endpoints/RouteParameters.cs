using System.Globalization;
using ApiGateway.Errors;
using LoadEngine;
using LoadEngine.Runs;

namespace ApiGateway.Endpoints;

/// <summary>
/// One query or path parameter of a route: its type, its limits (taken from the options and constants the validation
/// uses), its default and what it means. A route's list of these is the one place its OpenAPI parameters, its check
/// for unknown parameters and the validation of its simple whole numbers come from.
/// </summary>
/// <param name="Type">What the value reads as (int, double, bool, string or Guid), as the document types it; handlers read text, to answer bad input with a sentence.</param>
public sealed record RouteParameter(string Name, Type Type, string Description)
{
    public bool InPath { get; init; }

    /// <summary>A path parameter always is; a query parameter is when the route cannot do without it.</summary>
    public bool Required { get => InPath || field; init; }

    public double? Minimum { get; init; }

    public double? Maximum { get; init; }

    /// <summary>The value left out means; null when leaving it out means something the description says.</summary>
    public object? Default { get; init; }

    /// <summary>The only values a text parameter takes.</summary>
    public IReadOnlyList<string>? Allowed { get; init; }

    /// <summary>A regular expression a text parameter matches.</summary>
    public string? Pattern { get; init; }

    /// <summary>The longest a text parameter (each one, when repeatable) may be.</summary>
    public int? MaxLength { get; init; }

    /// <summary>How many times a repeatable parameter may be given.</summary>
    public int? MaxItems { get; init; }

    /// <summary>Given any number of times (thresholds=…&amp;thresholds=…).</summary>
    public bool Repeatable { get; init; }

    public object? Example { get; init; }

    public static RouteParameter Whole(string name, int minimum, int maximum, int? fallback, string description) =>
        new(name, typeof(int), description) { Minimum = minimum, Maximum = maximum, Default = fallback };

    public static RouteParameter OneOf(string name, IReadOnlyList<string> allowed, string? fallback, string description) =>
        new(name, typeof(string), description) { Allowed = allowed, Default = fallback, MaxLength = InputBounds.MaxValueLength };

    public static RouteParameter RunId(string what) =>
        new("id", typeof(Guid), $"The {what}'s id (a GUID), as its start answered and its list shows.") { InPath = true, Example = ProblemResponses.ExampleId };

    /// <summary>A whole number within this parameter's limits, or its default when left out; otherwise the sentence that says what is allowed.</summary>
    public bool TryWhole(string? text, out int value, out string error) =>
        RunPlanRules.TryWhole(text, Name, (int)Minimum!.Value, (int)Maximum!.Value, Default as int?, out value, out error);
}

/// <summary>A list's page, newest first: how many to list (at most <paramref name="Most"/>) and how many of the newest to skip.</summary>
public sealed record Paging(string What, int Most, int Fallback, string? Newest = null)
{
    public RouteParameter Limit { get; } = RouteParameter.Whole("limit", 1, Most, Fallback, $"How many {What} to list, newest first.");

    public RouteParameter Offset { get; } = RouteParameter.Whole("offset", 0, int.MaxValue, 0, $"How many of the newest {Newest ?? What} to skip, to page back.");

    public bool TryRead(string? limit, string? offset, out int take, out int skip, out string error)
    {
        skip = 0;
        return Limit.TryWhole(limit, out take, out error) && Offset.TryWhole(offset, out skip, out error);
    }
}

/// <summary>A route's parameters, kept as endpoint metadata so the OpenAPI document and the unknown-parameter check read the same list.</summary>
public sealed class RouteParameters(IReadOnlyList<RouteParameter> all, string? queryHint = null)
{
    /// <summary>A route with no parameters at all.</summary>
    public static RouteParameters None { get; } = new([]);

    /// <summary>A route that takes its settings as a JSON body (and <paramref name="path"/>), none in the query.</summary>
    public static RouteParameters Body(string what, params RouteParameter[] path) => new(path, $": the {what}'s settings go in the JSON body");

    public IReadOnlyList<RouteParameter> All { get; } = all;

    public IReadOnlyList<string> QueryNames { get; } = [.. all.Where(parameter => !parameter.InPath).Select(parameter => parameter.Name)];

    /// <summary>The first query parameter this route does not take, as the request spelt it.</summary>
    public string? FirstUnknown(IQueryCollection query) =>
        query.Keys.FirstOrDefault(key => !QueryNames.Contains(key, StringComparer.OrdinalIgnoreCase));

    /// <summary>What an unknown query parameter is told: that it is none, the nearest one meant, and every one the route takes.</summary>
    public string UnknownSentence(string name)
    {
        var meant = QueryNames.Where(known => Distance(name, known) <= 2).OrderBy(known => Distance(name, known)).FirstOrDefault();
        return $"{Excerpt.Of(name)} is not a parameter of this route{(meant is null ? "" : $" (did you mean {meant}?)")}; " +
            (QueryNames.Count == 0 ? $"it takes no query parameters{queryHint}." : $"it takes: {string.Join(", ", QueryNames)}{queryHint}.");
    }

    /// <summary>Each parameter as "name: what (from, to, default)", for a description that tells the same as the parameters.</summary>
    public string Describe() =>
        string.Join(" ", All.Select(parameter => $"{parameter.Name}: {parameter.Description}{Limits(parameter)}"));

    private static string Limits(RouteParameter parameter)
    {
        var parts = new List<string>();
        if (parameter.Minimum is { } minimum && parameter.Maximum is { } maximum)
        {
            parts.Add($"{minimum.ToString(CultureInfo.InvariantCulture)} to {maximum.ToString(CultureInfo.InvariantCulture)}");
        }

        if (parameter.Allowed is { } allowed)
        {
            parts.Add(string.Join(", ", allowed));
        }

        if (parameter.Default is { } fallback)
        {
            parts.Add($"default {Convert.ToString(fallback, CultureInfo.InvariantCulture)!.ToLowerInvariant()}");
        }

        return parts.Count == 0 ? "" : $" ({string.Join("; ", parts)})";
    }

    private static int Distance(string a, string b) => Spelling.Distance(a.ToLowerInvariant(), b.ToLowerInvariant());
}

public static class RouteParametersExtensions
{
    /// <summary>
    /// Declares a route's parameters: the document types and explains them, a query parameter the route does not take is
    /// a 400 that names it and lists those it does, and 400 and 405 are documented (any other method at its path is a 405).
    /// </summary>
    public static RouteHandlerBuilder WithParameters(this RouteHandlerBuilder route, RouteParameters parameters) =>
        route.WithMetadata(parameters)
            .AddEndpointFilter(async (context, next) =>
                parameters.FirstUnknown(context.HttpContext.Request.Query) is { } unknown
                    ? ProblemResponses.UnknownParameter(parameters.UnknownSentence(unknown))
                    : await next(context))
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status405MethodNotAllowed);

    public static RouteHandlerBuilder WithParameters(this RouteHandlerBuilder route, params RouteParameter[] parameters) =>
        route.WithParameters(new RouteParameters(parameters));
}
