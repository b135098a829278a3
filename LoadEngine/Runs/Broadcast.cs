using System.Threading.Channels;

namespace LoadEngine.Runs;

/// <summary>
/// Pushes each value to every follower as it happens (grpc-dotnet's Mailer example raises events the same way), instead
/// of followers polling. Each follower keeps at most <paramref name="capacityPerFollower"/> values it has not read: a slow
/// one loses its oldest, never the publisher's time nor the process's memory, so each stream must say what a lost value
/// costs and how its end makes up for it.
/// </summary>
public sealed class Broadcast<T>(int capacityPerFollower)
{
    private readonly object _gate = new();
    private readonly List<Channel<T>> _followers = [];
    private bool _completed;

    /// <summary>A reader of every value published from now on; it completes when the broadcast does, and disposing it stops the pushing.</summary>
    public Follower Follow()
    {
        var channel = Channel.CreateBounded<T>(
            new BoundedChannelOptions(capacityPerFollower) { FullMode = BoundedChannelFullMode.DropOldest, SingleReader = true, SingleWriter = true });
        lock (_gate)
        {
            if (_completed)
            {
                channel.Writer.TryComplete();
            }
            else
            {
                _followers.Add(channel);
            }
        }

        return new Follower(this, channel);
    }

    /// <summary>Hands the value to every follower without waiting for any: a full buffer drops its oldest value instead.</summary>
    public void Publish(T value)
    {
        lock (_gate)
        {
            foreach (var follower in _followers)
            {
                follower.Writer.TryWrite(value);
            }
        }
    }

    /// <summary>Ends every follower's reading (after the values already published); later followers end at once.</summary>
    public void Complete()
    {
        lock (_gate)
        {
            _completed = true;
            foreach (var follower in _followers)
            {
                follower.Writer.TryComplete();
            }

            _followers.Clear();
        }
    }

    /// <summary>One follower's reader: disposing it, when the follower leaves, stops pushing to it.</summary>
    public sealed class Follower(Broadcast<T> broadcast, Channel<T> channel) : IDisposable
    {
        public ChannelReader<T> Reader => channel.Reader;

        public void Dispose()
        {
            lock (broadcast._gate)
            {
                broadcast._followers.Remove(channel);
            }
        }
    }
}
