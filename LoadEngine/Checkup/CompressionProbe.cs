using System.Diagnostics;
using Grpc.Core;
using Grpc.Core.Interceptors;
using Grpc.Net.Client;
using LoadEngine.Calls;
using LoadEngine.Clients;
using LoadEngine.Lessons;
using LoadEngine.Protocols;
using LoadEngine.Runs;
using LoadEngine.Targets;
using LoadEngine.Targets.Described;
using Microsoft.Extensions.Options;

namespace LoadEngine.Checkup;

/// <summary>
/// The checkup's compression measurement: the user's request sent on two channels of one connection each, one asking
/// grpc-dotnet to gzip it and one not, calls alternating; each channel's socket counts the bytes it wrote and read, so the
/// figure is what the wire carried, HTTP/2 framing and headers included (under TLS, encrypted).
/// </summary>
public sealed class CompressionProbe(ChannelFactory channels, IOptions<EngineOptions> options, TargetText text) : ILessonProbe
{
    /// <summary>The header grpc-dotnet reads to compress a call's request messages (it sends grpc-encoding: gzip instead).</summary>
    public const string RequestEncodingHeader = "grpc-internal-encoding-request";

    private const int MostCallsPerArm = 200;

    private const int WarmCalls = 5;

    private const double DefaultSeconds = 4;

    public async Task<IReadOnlyList<ExperimentSample>> MeasureAsync(LessonPlan plan, int repetition, CancellationToken cancellation)
    {
        var call = plan.Call ?? throw new InvalidOperationException("The compression measurement runs on a described method.");
        var method = call.Described.Find(call.Call);
        var data = CallData.Parse(method, call.Data);
        var arms = new[] { (Name: "gzip", Gzip: true), (Name: "none", Gzip: false) }
            .Select(arm => (arm.Name, arm.Gzip, Wire: new WireCounter(), Times: new List<double>())).ToList();
        var opened = new List<GrpcChannel>();
        var number = 0L;
        var calls = 0;
        try
        {
            var invokers = arms.Select(arm =>
            {
                var handler = channels.CreateHandler();
                handler.ConnectCallback = arm.Wire.ConnectAsync;
                var channel = channels.CreateChannel(handler);
                opened.Add(channel);
                var invoker = channels.CreateInvoker(channel);
                return arm.Gzip ? invoker.Intercept(metadata => { metadata.Add(RequestEncodingHeader, "gzip"); return metadata; }) : invoker;
            }).ToList();

            async Task<double> TimedAsync(int arm) =>
                (await OneCall.TimedAsync(invokers[arm], method.Method, data.Request(number++, CallData.SampleWorker), options.Value.CallTimeout, cancellation)).Milliseconds;

            for (var warm = 0; warm < WarmCalls; warm++)
            {
                await TimedAsync(0);
                await TimedAsync(1);
                calls += 2;
            }

            var before = arms.Select(arm => arm.Wire.StartPhase()).ToList();
            var until = Stopwatch.GetTimestamp() + (long)((plan.ProbeSeconds ?? DefaultSeconds) * Stopwatch.Frequency);
            for (var index = 0; index < MostCallsPerArm && (index < WarmCalls || Stopwatch.GetTimestamp() < until); index++)
            {
                // Alternating which goes first, so neither arm always follows the other.
                foreach (var arm in index % 2 == 0 ? new[] { 0, 1 } : [1, 0])
                {
                    arms[arm].Times.Add(await TimedAsync(arm));
                    calls++;
                }
            }

            return [.. arms.Select((arm, index) =>
            {
                var carried = arm.Wire.Totals - before[index];
                var count = arm.Times.Count;
                return ExperimentSample.Measured(repetition, arm.Name, null,
                    ("bytesSentPerCall", (double)carried.Sent / count),
                    ("bytesReceivedPerCall", (double)carried.Received / count),
                    ("p50Ms", FigureRange.MedianOf(arm.Times)),
                    ("calls", count));
            })];
        }
        catch (RpcException error) when (!cancellation.IsCancellationRequested)
        {
            throw new LessonFailedException("compression", call.Address, MostCallsPerArm * 2, calls, error, text);
        }
        finally
        {
            opened.ForEach(channel => channel.Dispose());
        }
    }
}
