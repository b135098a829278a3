using System.Data.Common;
using System.Text.Json;
using ApiGateway.Runs;
using LoadEngine.Lessons;

namespace ApiGateway.History;

/// <summary>How a store keeps ids and times in its columns: SQLite as text, PostgreSQL as uuid and timestamptz.</summary>
public sealed record ColumnFormat(Func<DbDataReader, int, Guid> ReadId, Func<DbDataReader, int, DateTimeOffset> ReadTime);

/// <summary>
/// The rows both stores share, column for column: a run's 14 columns, a suite's 8, an experiment's JSON and state; the
/// records' parts are JSON in the gateway's own shape (<see cref="RunJson"/>).
/// </summary>
public static class RunRows
{
    public const string RunColumns = "id, suite_id, strategy, state, started_at, finished_at, plan_json, stats_json, error, measured, series_json, verdict_json, experiment_id, note";

    // Lists leave each run's time series out (a 10-minute run has 600 points); GetAsync has it.
    public const string ListedRunColumns = "id, suite_id, strategy, state, started_at, finished_at, plan_json, stats_json, error, measured, NULL, verdict_json, experiment_id, note";

    public const string SuiteColumns = "id, state, started_at, finished_at, plan_json, strategies_json, error, comparison_json";

    /// <summary>Runs the query and reads every row it returns.</summary>
    public static async Task<IReadOnlyList<T>> ReadAllAsync<T>(DbCommand command, Func<DbDataReader, T> read, CancellationToken cancellationToken)
    {
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        var rows = new List<T>();
        while (await reader.ReadAsync(cancellationToken))
        {
            rows.Add(read(reader));
        }

        return rows;
    }

    public static RunRecord ReadRun(DbDataReader row, ColumnFormat format) => new(
        Id: format.ReadId(row, 0),
        SuiteId: row.IsDBNull(1) ? null : format.ReadId(row, 1),
        State: Enum.Parse<RunState>(row.GetString(3)),
        StartedAt: format.ReadTime(row, 4),
        FinishedAt: row.IsDBNull(5) ? null : format.ReadTime(row, 5),
        Plan: FromJson<RunPlan>(row.GetString(6)),
        Stats: row.IsDBNull(7) ? null : FromJson<RunStats>(row.GetString(7)),
        Error: row.IsDBNull(8) ? null : row.GetString(8))
    {
        Measured = row.IsDBNull(9) ? null : row.GetString(9),
        Series = row.IsDBNull(10) ? null : FromJson<TimeSeries>(row.GetString(10)),
        Verdict = row.IsDBNull(11) ? null : FromJson<Verdict>(row.GetString(11)),
        ExperimentId = row.IsDBNull(12) ? null : format.ReadId(row, 12),
        Note = row.IsDBNull(13) ? null : row.GetString(13),
    };

    public static SuiteRecord ReadSuite(DbDataReader row, ColumnFormat format) => new(
        Id: format.ReadId(row, 0),
        State: Enum.Parse<RunState>(row.GetString(1)),
        StartedAt: format.ReadTime(row, 2),
        FinishedAt: row.IsDBNull(3) ? null : format.ReadTime(row, 3),
        Plan: FromJson<RunPlan>(row.GetString(4)),
        Strategies: FromJson<string[]>(row.GetString(5)),
        Error: row.IsDBNull(6) ? null : row.GetString(6))
    {
        Comparison = row.IsDBNull(7) ? null : FromJson<ComparisonPlan>(row.GetString(7)),
    };

    // The state column is the truth: a record cut off by a stop is marked there (and in its JSON) at the next start.
    public static ExperimentRecord ReadExperiment(DbDataReader row) =>
        FromJson<ExperimentRecord>(row.GetString(0)) with { State = Enum.Parse<RunState>(row.GetString(1)) };

    public static string ToJson<T>(T value) => JsonSerializer.Serialize(value, RunJson.Options);

    public static T FromJson<T>(string json) =>
        JsonSerializer.Deserialize<T>(json, RunJson.Options) ?? throw new InvalidDataException($"The history holds a null {typeof(T).Name}.");
}
