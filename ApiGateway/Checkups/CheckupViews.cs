using ApiGateway.Runs;
using LoadEngine.Checkup;

namespace ApiGateway.Checkups;

public sealed record CheckupLinks(string Self, string Events, string Cancel);

/// <summary>
/// A checkup as the API shows it: its record (the prescription so far, the sweep, the experiments, the step measured now),
/// the run going now while it runs (followed at GET /api/runs/{id}/events), and its links.
/// </summary>
public sealed record CheckupView(CheckupRecord Checkup, Guid? CurrentRunId, CheckupLinks Links)
{
    public static CheckupView From(CheckupRecord record, ActiveCheckup? active = null)
    {
        var path = $"/api/checkups/{record.Id}";
        return new(record, record.State == RunState.Running ? active?.Current?.Id : null, new(path, $"{path}/events", $"{path}/cancel"));
    }
}

public sealed record CheckupPage(int Total, int Limit, int Offset, IReadOnlyList<CheckupView> Checkups);
