namespace ApiGateway.Runs;

/// <summary>
/// An experiment or a checkup in progress: runs in turn, its record as each step ends (told to its followers), and the
/// record it ends as. <see cref="RunCoordinator"/> runs either to its end the same way.
/// </summary>
public abstract class ActiveRecordSequence<T>(Guid id, T record, CancellationToken stopping) : ActiveSequence(stopping)
    where T : class
{
    private T _record = record;

    public Guid Id { get; } = id;

    public T Record => Volatile.Read(ref _record);

    public Task<T> Completion { get; internal set; } = null!;

    internal void Update(T record)
    {
        Volatile.Write(ref _record, record);
        Published(record);
    }

    /// <summary>Tells the followers the record as it is now.</summary>
    protected abstract void Published(T record);

    /// <summary>Nothing more will be told: each follower reads to the end.</summary>
    internal abstract void Ended();
}
