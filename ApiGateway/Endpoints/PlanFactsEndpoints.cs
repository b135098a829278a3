using ApiGateway.OpenApi;
using LoadEngine.Reports;

namespace ApiGateway.Endpoints;

/// <summary>
/// The rules the chart page would otherwise copy: the loads (names, words, which start calls on a schedule, which settings
/// each reads), the payload's default and limit, and the palette the HTML reports use too.
/// </summary>
public sealed record PlanFacts(
    IReadOnlyList<LoadFact> Loads,
    int DefaultPayloadBytes,
    int MaxPayloadBytes,
    IReadOnlyList<string> Palette,
    IReadOnlyDictionary<string, string> ApiColours,
    string UnknownColour)
{
    public static PlanFacts Current { get; } = new(
        LoadFact.All, RunPlanRules.DefaultPayloadBytes, RunPlanRules.MaxPayloadBytes, ChartPalette.Colours, ChartPalette.ApiColours, ChartPalette.Unknown);
}

public static class PlanFactsEndpoints
{
    public static IEndpointRouteBuilder MapPlanFacts(this IEndpointRouteBuilder app)
    {
        app.MapGet("/api/plan-facts", () => PlanFacts.Current)
            .WithTags("Strategies")
            .WithSummary("The loads (name, words, label, whether calls start on a schedule, the settings each reads), the payload's default and limit, and the charts' palette: what the chart page shows, from the engine's one copy.")
            .WithParameters(RouteParameters.None);
        return app;
    }
}
