using System.Runtime.InteropServices;

namespace LoadTest;

/// <summary>
/// Ctrl+C (SIGINT) or SIGTERM, as a CI runner sends when a job is cancelled: the first one cancels the current run, which
/// then ends as Cancelled with what it measured, the summary is printed and the files are written. A second one ends the
/// process at once, as the signal would have.
/// </summary>
public sealed class Interrupt : IDisposable
{
    private readonly CancellationTokenSource _cancellation = new();
    private readonly PosixSignalRegistration[] _registrations;
    private string? _signal;

    public Interrupt()
    {
        _registrations = [PosixSignalRegistration.Create(PosixSignal.SIGINT, OnSignal), PosixSignalRegistration.Create(PosixSignal.SIGTERM, OnSignal)];
    }

    public CancellationToken Token => _cancellation.Token;

    /// <summary>What interrupted: "Ctrl+C (SIGINT)" or "SIGTERM"; null while nothing has.</summary>
    public string? Signal => Volatile.Read(ref _signal);

    public void Dispose()
    {
        foreach (var registration in _registrations)
        {
            registration.Dispose();
        }

        _cancellation.Dispose();
    }

    /// <summary>Interrupts as a signal would, for a reason of the process's own (an agent's run cancelled at the gateway); false when something already had.</summary>
    public bool Raise(string reason)
    {
        if (Interlocked.CompareExchange(ref _signal, reason, null) is not null)
        {
            return false;
        }

        _cancellation.Cancel();
        return true;
    }

    // Only the first signal is handled here; a second one goes on to end the process.
    private void OnSignal(PosixSignalContext context) => context.Cancel = Raise(context.Signal == PosixSignal.SIGINT ? "Ctrl+C (SIGINT)" : "SIGTERM");
}
