using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using System.Diagnostics.Tracing;

namespace PerformanceService.Metrics;

/// <summary>
/// grpc-dotnet's server figures as OpenTelemetry instruments (meter <see cref="MeterName"/>). Grpc.AspNetCore.Server
/// 2.85 publishes them only as EventCounters of its EventSource of that name, not through a Meter, so AddMeter alone
/// finds nothing: this listener asks for them every second and the instruments report the latest values. While it
/// listens, grpc-dotnet counts each call and message with an interlocked increment; its per-call events stay off.
/// </summary>
public sealed class GrpcServerCounters : IHostedService, IDisposable
{
    public const string MeterName = "GrpcBestPractices.GrpcServer";
    public const string EventSourceName = "Grpc.AspNetCore.Server";

    private readonly ConcurrentDictionary<string, double> _latest = new(StringComparer.Ordinal);
    private CounterListener? _listener;

    public GrpcServerCounters(IMeterFactory meters)
    {
        var meter = meters.Create(MeterName);
        meter.CreateObservableCounter("grpc.server.calls", () => Latest("total-calls"), "{call}", "gRPC calls the service started (grpc-dotnet's total-calls).");
        meter.CreateObservableUpDownCounter("grpc.server.calls.active", () => Latest("current-calls"), "{call}", "gRPC calls in progress (current-calls).");
        meter.CreateObservableCounter("grpc.server.calls.failed", () => Latest("calls-failed"), "{call}", "gRPC calls that ended with a status other than OK (calls-failed).");
        meter.CreateObservableCounter("grpc.server.calls.deadline_exceeded", () => Latest("calls-deadline-exceeded"), "{call}", "gRPC calls past their deadline (calls-deadline-exceeded).");
        meter.CreateObservableCounter("grpc.server.calls.unimplemented", () => Latest("calls-unimplemented"), "{call}", "gRPC calls to a method the service does not have (calls-unimplemented).");
        meter.CreateObservableCounter("grpc.server.messages.sent", () => Latest("messages-sent"), "{message}", "gRPC messages the service sent (messages-sent).");
        meter.CreateObservableCounter("grpc.server.messages.received", () => Latest("messages-received"), "{message}", "gRPC messages the service received (messages-received).");
    }

    public Task StartAsync(CancellationToken cancellationToken)
    {
        _listener = new CounterListener(_latest);
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public void Dispose() => _listener?.Dispose();

    private long Latest(string counter) => (long)_latest.GetValueOrDefault(counter);

    private sealed class CounterListener(ConcurrentDictionary<string, double> latest) : EventListener
    {
        private static readonly Dictionary<string, string?> EverySecond = new() { ["EventCounterIntervalSec"] = "1" };

        // Called from the base constructor for sources that already exist, before this class's constructor ran: use no field of its own.
        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == EventSourceName)
            {
                // The lowest level that is not "all": the counters' payloads are always written, the per-call events never.
                EnableEvents(source, EventLevel.Critical, EventKeywords.None, EverySecond);
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs written)
        {
            if (written is { EventName: "EventCounters", Payload: [IDictionary<string, object?> counter] }
                && counter.TryGetValue("Name", out var name) && name is string counterName
                && counter.TryGetValue("Mean", out var value) && value is double mean)
            {
                latest[counterName] = mean;
            }
        }
    }
}
