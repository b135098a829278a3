using System.Globalization;

namespace LoadEngine;

/// <summary>What a process that runs the engine sets first thing in Main, before any of it is used (the gateway's and the CLI's).</summary>
public static class EngineProcess
{
    /// <summary>
    /// Let the shared ArrayPool keep enough buffers for many HTTP/2 streams at once. SocketsHttpHandler buffers
    /// each stream's response in 16 KB blocks from that pool; at 100 calls in flight the default 32 arrays per
    /// partition overflowed and every miss allocated a fresh block (measured: 10.9 KB allocated per call and
    /// 66k calls/s, against 4.7 KB and 87k with 256). The runtime reads this setting only from the environment,
    /// once, when the pool is first used, so this must run first thing in Main; a value the user set wins.
    /// </summary>
    public static void SizeSharedArrayPoolForConcurrentStreams(int arraysPerPartition = 256)
    {
        const string Variable = "DOTNET_SYSTEM_BUFFERS_SHAREDARRAYPOOL_MAXARRAYSPERPARTITION";
        if (string.IsNullOrEmpty(Environment.GetEnvironmentVariable(Variable)))
        {
            Environment.SetEnvironmentVariable(Variable, arraysPerPartition.ToString(CultureInfo.InvariantCulture));
        }
    }
}
