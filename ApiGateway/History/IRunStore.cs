using LoadEngine.Checkup;
using LoadEngine.Lessons;

namespace ApiGateway.History;

/// <summary>The run history. Writes are never cancelled by a caller: a run is stored before its answer goes out.</summary>
public interface IRunStore
{
    /// <summary>Inserts or replaces the run with this id.</summary>
    Task SaveAsync(RunRecord run, CancellationToken cancellationToken = default);

    Task<RunRecord?> GetAsync(Guid id, CancellationToken cancellationToken = default);

    /// <summary>Newest first (by StartedAt), optionally only one strategy's runs; without their time series.</summary>
    Task<IReadOnlyList<RunRecord>> ListAsync(string? strategy, int limit, int offset, CancellationToken cancellationToken = default);

    /// <summary>How many runs <see cref="ListAsync"/> would page through.</summary>
    Task<int> CountAsync(string? strategy, CancellationToken cancellationToken = default);

    /// <summary>A suite's runs in the order they started; without their time series.</summary>
    Task<IReadOnlyList<RunRecord>> ListSuiteRunsAsync(Guid suiteId, CancellationToken cancellationToken = default);

    /// <summary>True when a run was deleted.</summary>
    Task<bool> DeleteAsync(Guid id, CancellationToken cancellationToken = default);

    Task SaveSuiteAsync(SuiteRecord suite, CancellationToken cancellationToken = default);

    Task<SuiteRecord?> GetSuiteAsync(Guid id, CancellationToken cancellationToken = default);

    /// <summary>The suites that are protocol comparisons, newest first.</summary>
    Task<IReadOnlyList<SuiteRecord>> ListComparisonsAsync(int limit, int offset, CancellationToken cancellationToken = default);

    Task<int> CountComparisonsAsync(CancellationToken cancellationToken = default);

    /// <summary>Inserts or replaces the lesson experiment with this id.</summary>
    Task SaveExperimentAsync(ExperimentRecord experiment, CancellationToken cancellationToken = default);

    Task<ExperimentRecord?> GetExperimentAsync(Guid id, CancellationToken cancellationToken = default);

    /// <summary>One lesson's experiments, newest first.</summary>
    Task<IReadOnlyList<ExperimentRecord>> ListExperimentsAsync(string lesson, int limit, int offset, CancellationToken cancellationToken = default);

    Task<int> CountExperimentsAsync(string lesson, CancellationToken cancellationToken = default);

    /// <summary>Inserts or replaces the checkup with this id.</summary>
    Task SaveCheckupAsync(CheckupRecord checkup, CancellationToken cancellationToken = default);

    Task<CheckupRecord?> GetCheckupAsync(Guid id, CancellationToken cancellationToken = default);

    /// <summary>The checkups, newest first.</summary>
    Task<IReadOnlyList<CheckupRecord>> ListCheckupsAsync(int limit, int offset, CancellationToken cancellationToken = default);

    Task<int> CountCheckupsAsync(CancellationToken cancellationToken = default);
}
