namespace ApiGateway.Runs;

/// <summary>
/// Work that is not a stored run (the one-request lessons) still takes one of the in-flight slots, so one limit admits
/// everything that makes calls from the gateway. Distributed runs, whose agents make the calls, have their own.
/// </summary>
public sealed partial class RunCoordinator
{
    private int _agentSlots;

    /// <summary>A slot held until the lease is disposed; null when <see cref="Configuration.RunLimitsOptions.MaxRunsInFlight"/> are taken.</summary>
    public IDisposable? TryTakeSlot() => TryReserve() ? new SlotLease(Release) : null;

    /// <summary>A distributed run's slot, held until the lease is disposed; null when <see cref="Agents.AgentOptions.MaxRunsInFlight"/> are taken.</summary>
    private SlotLease? TryTakeAgentSlot()
    {
        if (Interlocked.Increment(ref _agentSlots) > agents.Value.MaxRunsInFlight)
        {
            Interlocked.Decrement(ref _agentSlots);
            return null;
        }

        return new SlotLease(() => Interlocked.Decrement(ref _agentSlots));
    }

    private sealed class SlotLease(Action release) : IDisposable
    {
        private int _released;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _released, 1) == 0)
            {
                release();
            }
        }
    }
}
