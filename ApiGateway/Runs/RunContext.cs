using System.Runtime.InteropServices;
using GrpcDependencies.Grpc;
using Performance;

namespace ApiGateway.Runs;

/// <summary>
/// What a strategy needs while it runs: requests to send, deadlines to attach, and a place to put answers.
/// The first failed call cancels the rest: a run is reported whole or as failed, never as a partial success.
/// </summary>
public sealed class RunContext : IDisposable
{
    private readonly CancellationTokenSource _stop;
    private readonly PerformanceStatus[] _statuses;
    private readonly string?[] _connectionIds;
    private readonly string _strategyName;
    private RunFailure? _failure;

    public RunContext(string strategyName, RunPlan plan, TimeSpan callTimeout, CancellationToken callerGone)
    {
        _strategyName = strategyName;
        Plan = plan;
        CallTimeout = callTimeout;
        _stop = CancellationTokenSource.CreateLinkedTokenSource(callerGone);
        _statuses = new PerformanceStatus[plan.Count];
        _connectionIds = new string?[plan.Count];
    }

    public RunPlan Plan { get; }

    public int Count => Plan.Count;

    public TimeSpan CallTimeout { get; }

    /// <summary>Cancelled when the caller disconnects or a call fails.</summary>
    public CancellationToken Cancellation => _stop.Token;

    public RunFailure? Failure => Volatile.Read(ref _failure);

    public PerformanceStatusRequest CreateRequest(int index) => new()
    {
        ClientName = $"{_strategyName} #{index + 1}",
        DelayMs = Plan.DelayMs,
    };

    public CallOptions CreateCallOptions() => new(DateTime.UtcNow + CallTimeout, _stop.Token);

    public void Record(int index, PerformanceStatusResponse response)
    {
        _statuses[index] = PerformanceStatus.From(response);
        _connectionIds[index] = response.ConnectionId;
    }

    /// <summary>Keeps the first real failure (later calls fail only because this one cancelled them) and stops the run.</summary>
    public void Fail(int index, RpcException error)
    {
        if (Interlocked.CompareExchange(ref _failure, new RunFailure(index, error), null) is null)
        {
            _stop.Cancel();
        }
    }

    public IReadOnlyList<PerformanceStatus> Statuses => _statuses;

    public int CompletedCalls => _statuses.Count(status => status is not null);

    public int DistinctConnections => _connectionIds.Where(id => id is not null).Distinct(StringComparer.Ordinal).Count();

    public void Dispose() => _stop.Dispose();
}

public sealed record RunFailure(int Index, RpcException Error);

/// <summary>One answer, in the chapter's JSON shape. Byte fields serialize as base64.</summary>
public sealed record PerformanceStatus(
    double CpuPercentageUsage,
    double MemoryUsage,
    int ProcessesRunning,
    int ActiveConnections,
    byte[] DataLoad1,
    byte[] DataLoad2)
{
    public static PerformanceStatus From(PerformanceStatusResponse response) => new(
        response.CpuPercentageUsage,
        response.MemoryUsage,
        response.ProcessesRunning,
        response.ActiveConnections,
        // Copies: always safe, always allocates.
        response.DataLoad1.ToByteArray(),
        WithoutCopy(response.DataLoad2));

    // The parsed ByteString owns its array; take it when the segment is the whole array, copy only the slice otherwise.
    private static byte[] WithoutCopy(Google.Protobuf.ByteString bytes) =>
        MemoryMarshal.TryGetArray(bytes.Memory, out var segment) && segment.Array is { } array && segment.Offset == 0 && segment.Count == array.Length
            ? array
            : bytes.Memory.ToArray();
}
