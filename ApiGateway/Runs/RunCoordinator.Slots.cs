namespace ApiGateway.Runs;

/// <summary>Work that is not a stored run (the one-request lessons) still takes one of the in-flight slots, so one limit admits everything.</summary>
public sealed partial class RunCoordinator
{
    /// <summary>A slot held until the lease is disposed; null when <see cref="Configuration.RunLimitsOptions.MaxRunsInFlight"/> are taken.</summary>
    public IDisposable? TryTakeSlot() => TryReserve() ? new SlotLease(this) : null;

    private sealed class SlotLease(RunCoordinator owner) : IDisposable
    {
        private int _released;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _released, 1) == 0)
            {
                owner.Release();
            }
        }
    }
}
