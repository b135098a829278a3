namespace ApiGateway.Runs;

/// <summary>
/// Work that is not a stored run (the one-request lessons) still takes one of the in-flight slots, so one limit admits
/// everything that makes calls from the gateway. Distributed runs, whose agents make the calls, have their own.
/// </summary>
public sealed partial class RunCoordinator
{
    private readonly SlotPool _localSlots = new();
    private readonly SlotPool _agentSlots = new();

    /// <summary>A slot held until the lease is disposed; null when <see cref="Configuration.RunLimitsOptions.MaxRunsInFlight"/> are taken.</summary>
    public IDisposable? TryTakeSlot() => _localSlots.TryTake(limits.Value.MaxRunsInFlight);

    /// <summary>A distributed run's slot, held until the lease is disposed; null when <see cref="Agents.AgentOptions.MaxRunsInFlight"/> are taken.</summary>
    private IDisposable? TryTakeAgentSlot() => _agentSlots.TryTake(agents.Value.MaxRunsInFlight);

    private sealed class SlotPool
    {
        private int _taken;

        public int Taken => Volatile.Read(ref _taken);

        public IDisposable? TryTake(int limit)
        {
            if (Interlocked.Increment(ref _taken) > limit)
            {
                Interlocked.Decrement(ref _taken);
                return null;
            }

            return new SlotLease(() => Interlocked.Decrement(ref _taken));
        }
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
