using System.Threading.Channels;

namespace LoadEngine.Runs;

/// <summary>
/// Pushes each value to every follower as it happens (grpc-dotnet's Mailer example raises events the same way), instead
/// of followers polling. A slow follower with a bounded buffer loses its oldest values, never the publisher's time.
/// </summary>
public sealed class Broadcast<T>(int? capacityPerFollower = null)
{
    private readonly object _gate = new();
    private readonly List<Channel<T>> _followers = [];
    private bool _completed;

    /// <summary>A reader of every value published from now on; it completes when the broadcast does.</summary>
    public ChannelReader<T> Follow()
    {
        var channel = capacityPerFollower is { } capacity
            ? Channel.CreateBounded<T>(new BoundedChannelOptions(capacity) { FullMode = BoundedChannelFullMode.DropOldest, SingleReader = true, SingleWriter = true })
            : Channel.CreateUnbounded<T>(new UnboundedChannelOptions { SingleReader = true, SingleWriter = true });
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

        return channel.Reader;
    }

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

    /// <summary>Stops pushing to a follower that left.</summary>
    public void Forget(ChannelReader<T> reader)
    {
        lock (_gate)
        {
            _followers.RemoveAll(follower => follower.Reader == reader);
        }
    }
}
