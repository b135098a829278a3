using System.Globalization;
using Grpc.Core;
using Microsoft.Extensions.Options;

namespace PerformanceService.Services;

/// <summary>
/// The bytes of answers built and not yet written (two payloads per answer), against <see cref="MonitorOptions.MaxAnswerMegabytesInFlight"/>:
/// an answer that would exceed it is refused with RESOURCE_EXHAUSTED instead of being built. One counter, no lock.
/// </summary>
public sealed class AnswerBudget(IOptions<MonitorOptions> options)
{
    private readonly long _limitBytes = options.Value.MaxAnswerMegabytesInFlight * 1024L * 1024;
    private long _inFlight;

    /// <summary>Takes <paramref name="bytes"/> until the lease is disposed, or throws RESOURCE_EXHAUSTED saying why.</summary>
    public Lease Take(long bytes)
    {
        var after = Interlocked.Add(ref _inFlight, bytes);
        if (after > _limitBytes)
        {
            Interlocked.Add(ref _inFlight, -bytes);
            throw new RpcException(new Status(StatusCode.ResourceExhausted, string.Create(CultureInfo.InvariantCulture,
                $"The service has {(after - bytes) / 1024 / 1024} MiB of answers in flight; this answer's {bytes / 1024} KiB would exceed its budget of " +
                $"{_limitBytes / 1024 / 1024} MiB (Monitor:MaxAnswerMegabytesInFlight). Retry later, or use fewer calls in flight or a smaller payload_bytes.")));
        }

        return new Lease(this, bytes);
    }

    /// <summary>Held while an answer exists; disposing it twice gives the bytes back once.</summary>
    public sealed class Lease(AnswerBudget budget, long bytes) : IDisposable
    {
        private int _released;

        public void Dispose()
        {
            if (Interlocked.Exchange(ref _released, 1) == 0)
            {
                Interlocked.Add(ref budget._inFlight, -bytes);
            }
        }
    }
}
