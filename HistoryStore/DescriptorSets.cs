using System.Security.Cryptography;
using System.Text.Json.Nodes;

namespace HistoryStore;

/// <summary>
/// The descriptor sets that stored plans name (<see cref="RunPlan.DescriptorSet"/>), each kept once per hash in the
/// history's database beside the runs, suites and agent runs whose plans name it in their <see cref="Column"/>. A plan
/// is stored with its set in one transaction; a plan loaded to run gets the set back by its name, checked against the
/// name, since whoever can write the database could have changed it; a set that no plan names any more is swept away
/// when a run is deleted.
/// </summary>
public sealed class DescriptorSets(HistoryDatabase database)
{
    /// <summary>The column of each table of plans that names the plan's set (null for a plan that names none).</summary>
    public const string Column = "descriptor_set";

    // Inserted when absent. An existing row is updated to itself rather than left alone (DO NOTHING): the update holds its
    // lock until the plan that names it is stored, so a sweep in PostgreSQL cannot remove it between the two.
    private const string Insert = $"""
        INSERT INTO descriptor_sets (hash, bytes, stored_at) VALUES (@{Column}, @{Column}_bytes, @{Column}_stored_at)
            ON CONFLICT (hash) DO UPDATE SET stored_at = descriptor_sets.stored_at;
        """;

    // The tables whose rows hold a plan, each naming its set in Column.
    private static readonly string[] PlanTables = ["runs", "suites", "agent_runs"];

    /// <summary>The table, for a store's schema: made by whichever store opens the database first.</summary>
    public string Schema => $"""
        CREATE TABLE IF NOT EXISTS descriptor_sets (
            hash TEXT NOT NULL PRIMARY KEY,
            bytes {database.BytesType} NOT NULL,
            stored_at {database.TimeType} NOT NULL);
        """;

    /// <summary>
    /// Runs <paramref name="sql"/>, which writes <paramref name="plan"/>'s row with <c>@descriptor_set</c> as its
    /// <see cref="Column"/>; a plan that carries its set's bytes stores them first, in the same transaction, unless the
    /// set is stored already.
    /// </summary>
    public Task<int> WriteAsync(RunPlan plan, string sql, CancellationToken cancellationToken, params (string Name, object? Value)[] parameters)
    {
        (string, object?) name = (Column, plan.Described?.DescriptorSet);
        if (plan.Described?.Descriptors is not { } bytes)
        {
            return database.ExecuteAsync(sql, cancellationToken, [.. parameters, name]);
        }

        if (plan.Described.DescriptorSet is null)
        {
            throw new ArgumentException("A plan that carries descriptors names them by their hash (DescribedTarget.Describing sets both).", nameof(plan));
        }

        return database.ExecuteAtomicallyAsync(Insert + sql, cancellationToken, [.. parameters, name, ($"{Column}_bytes", bytes), ($"{Column}_stored_at", database.Time(DateTimeOffset.UtcNow))]);
    }

    /// <summary>
    /// <paramref name="plan"/>, read from the database to be run, with its set's bytes; or why it cannot run: the set it
    /// names is not stored, the bytes stored under that name are not the set of that name, or it calls a target's method
    /// and names no set (stored by an earlier version, with the set inline).
    /// </summary>
    public async Task<(RunPlan Plan, string? Problem)> LoadAsync(RunPlan plan, CancellationToken cancellationToken)
    {
        if (plan.Described?.DescriptorSet is not { } name)
        {
            // A plan of a target's method names its set; one stored before sets were kept apart carried it inline, skipped when read.
            return (plan, plan.Described is null ? null : "The plan calls a target's method but names no descriptor set: it was stored by an earlier version, which kept the set in the plan; start the run again from the gateway.");
        }

        // The name is read from the database too: it is quoted only once it is known to be a hash.
        if (name.Length != SHA256.HashSizeInBytes * 2 || !name.All(char.IsAsciiHexDigit))
        {
            return (plan, $"The plan's descriptor set in {database.Description} is not named by a SHA-256 in hex, so it is not run.");
        }

        var stored = (await database.QueryAsync("SELECT bytes FROM descriptor_sets WHERE hash = @hash;", row => row.GetFieldValue<byte[]>(0), cancellationToken, ("hash", name))).SingleOrDefault();
        if (stored is null)
        {
            return (plan, $"The plan names descriptor set {name}, which {database.Description} does not hold: start the run again from the gateway, which stores the set with the plan.");
        }

        // As DescribedTarget.Hash names a set.
        var actual = Convert.ToHexString(SHA256.HashData(stored));
        return string.Equals(actual, name, StringComparison.OrdinalIgnoreCase)
            ? (plan with { Called = plan.Described with { Descriptors = stored } }, null)
            : (plan, $"The descriptor set stored as {name} in {database.Description} does not match its name (its SHA-256 is {actual}): it was changed after it was stored, so the plan is not run.");
    }

    /// <summary>
    /// Moves the sets that plans stored before sets were kept apart carry inline (base64 in the plan's "descriptors") into
    /// the sets' table, each once by its hash, and names it beside and in each such plan: an old run's set then reads back
    /// as a new run's does, and the plan's JSON loses the copy.
    /// </summary>
    public async Task MoveInlineSetsAsync(SchemaChange change, params string[] tables)
    {
        foreach (var table in tables)
        {
            var inline = await change.QueryAsync(
                $"SELECT id, plan_json FROM {table} WHERE {Column} IS NULL AND plan_json LIKE '%\"descriptors\"%';",
                row => (Id: row.GetValue(0), Plan: JsonNode.Parse(row.GetString(1))?.AsObject()));
            foreach (var (id, plan) in inline)
            {
                if (plan?["descriptors"] is not JsonValue base64 || !base64.TryGetValue<string>(out var text))
                {
                    continue;
                }

                var bytes = Convert.FromBase64String(text);
                var hash = Convert.ToHexString(SHA256.HashData(bytes));
                plan.Remove("descriptors");
                plan["descriptorSet"] = hash;
                await change.ExecuteAsync(
                    $"""
                    {Insert}
                    UPDATE {table} SET plan_json = @plan_json, {Column} = @{Column} WHERE id = @id;
                    """,
                    (Column, hash), ($"{Column}_bytes", bytes), ($"{Column}_stored_at", database.Time(DateTimeOffset.UtcNow)),
                    ("plan_json", plan.ToJsonString()), ("id", id));
            }
        }
    }

    /// <summary>Removes every set that no stored plan names: after a run is deleted, so a set goes with the last plan that named it.</summary>
    public async Task SweepAsync(CancellationToken cancellationToken = default)
    {
        await using var connection = await database.OpenAsync(cancellationToken);
        await using var transaction = await connection.BeginTransactionAsync(cancellationToken);
        // Either store may be alone in its database (an agent's, a gateway's before its agents' tables): only the tables there can name a set.
        var unnamed = new List<string>();
        foreach (var table in PlanTables)
        {
            if (await database.HasColumnAsync(connection, transaction, table, Column))
            {
                unnamed.Add($"NOT EXISTS (SELECT 1 FROM {table} WHERE {table}.{Column} = descriptor_sets.hash)");
            }
        }

        var where = string.Join(" AND ", unnamed);
        // PostgreSQL: lock first, then delete in a statement of its own, whose snapshot sees the plan of any save that held
        // the lock (SQLite's writers take turns already).
        if (database.Pick<string?>(null, $"SELECT hash FROM descriptor_sets WHERE {where} FOR UPDATE;") is { } lockUnnamed)
        {
            await HistoryDatabase.NonQueryAsync(connection, transaction, lockUnnamed, cancellationToken);
        }

        await HistoryDatabase.NonQueryAsync(connection, transaction, $"DELETE FROM descriptor_sets WHERE {where};", cancellationToken);
        await transaction.CommitAsync(cancellationToken);
    }
}
