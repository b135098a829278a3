using Grpc.Core;
using LoadEngine.Protocols;

namespace GrpcBestPractices.Tests.Fakes;

/// <summary>
/// One API client of the service, faked: every operation answers with the checksum the client expects (as the real
/// service does), unless <see cref="Corrupt"/> says to answer that call wrongly. It records which calls it carried and
/// whether it was disposed.
/// </summary>
public sealed class FakeWorkloadApi : IWorkloadApi
{
    private int _calls;

    /// <summary>Answer call number n (0-based, of this client) with a checksum one off.</summary>
    public Func<int, bool> Corrupt { get; init; } = _ => false;

    public int Calls => Volatile.Read(ref _calls);

    public bool Disposed { get; private set; }

    public Task<ulong> FetchAsync(Fetch fetch, int key, CallOptions options) => Answer(fetch.Expected.First(key + 1)[key]);

    public async Task<Receipt> WriteLogAsync(int id, CallOptions options) => new(await Answer(WorkloadSamples.LogRecordAcks[id]), 1);

    public async Task<Receipt> UploadAsync(long length, CallOptions options) => new(await Answer(WorkloadSamples.File(length)), length);

    public async IAsyncEnumerable<ulong> StreamUsersAsync(int count, CallOptions options)
    {
        var users = WorkloadSamples.Users.First(count);
        var corrupt = Corrupt(Interlocked.Increment(ref _calls) - 1);
        for (var i = 0; i < count; i++)
        {
            await Task.Yield();
            yield return corrupt && i == count / 2 ? users[i] + 1 : users[i];
        }
    }

    public void Dispose() => Disposed = true;

    private async Task<ulong> Answer(ulong expected)
    {
        await Task.Yield();
        return Corrupt(Interlocked.Increment(ref _calls) - 1) ? expected + 1 : expected;
    }
}
