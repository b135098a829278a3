using Grpc.Core;
using LoadEngine.Targets;

namespace LoadEngine.Runs;

/// <summary>
/// The server's own words for a run's failed calls: per status, the first few distinct messages (status details) and how
/// many calls each ended with. Memory is bounded however many calls fail and whatever the server sends:
/// <see cref="MaxMessagesPerStatus"/> messages per status, each cut at <see cref="MaxMessageLength"/> characters; a call
/// whose message is not among them counts only in its status's <see cref="StatusDetail.OtherMessageCalls"/>.
/// </summary>
/// <remarks>
/// Messages arrive already masked and escaped (<see cref="Calls.CallFailure.From"/> cleans every detail with the engine's
/// <see cref="TargetText"/>); the cut here is the tighter bound a run's record keeps.
/// </remarks>
public sealed class StatusDetails
{
    /// <summary>Distinct messages kept per status: ghz's error distribution shows every one, which a server can make endless.</summary>
    public const int MaxMessagesPerStatus = 5;

    /// <summary>The most characters of a message kept (then "… (cut at 300 characters)").</summary>
    public const int MaxMessageLength = 300;

    private readonly Tally?[] _tallies = new Tally?[RunRecorder.StatusCodes];

    /// <summary>A failed call ended with <paramref name="status"/> and <paramref name="message"/> (masked and escaped already). Safe from many threads.</summary>
    public void Record(StatusCode status, string? message)
    {
        var code = (int)status;
        var tally = Volatile.Read(ref _tallies[code]) ?? Interlocked.CompareExchange(ref _tallies[code], new Tally(), null) ?? _tallies[code]!;
        tally.Add(message ?? string.Empty);
    }

    /// <summary>The statuses that failed calls, most calls first, each with its kept messages, most calls first.</summary>
    public IReadOnlyList<StatusDetail> ToList() =>
    [
        .. Enumerable.Range(0, _tallies.Length)
            .Where(code => _tallies[code] is not null)
            .Select(code => _tallies[code]!.ToDetail((StatusCode)code))
            .OrderByDescending(detail => detail.Calls)
            .ThenBy(detail => detail.Status, StringComparer.Ordinal),
    ];

    /// <summary>Many agents' details as one run's: calls summed per status and message, still within the same bounds.</summary>
    public static IReadOnlyList<StatusDetail> Merge(IEnumerable<IReadOnlyList<StatusDetail>> parts)
    {
        var merged = new Dictionary<string, (long Calls, List<StatusMessage> Messages, long Other)>(StringComparer.Ordinal);
        foreach (var detail in parts.SelectMany(part => part))
        {
            var (calls, messages, other) = merged.GetValueOrDefault(detail.Status, (0, [], 0));
            other += detail.OtherMessageCalls;
            foreach (var message in detail.Messages)
            {
                var at = messages.FindIndex(kept => kept.Message == message.Message);
                if (at >= 0)
                {
                    messages[at] = messages[at] with { Calls = messages[at].Calls + message.Calls };
                }
                else if (messages.Count < MaxMessagesPerStatus)
                {
                    messages.Add(message with { Message = Bounded(message.Message) });
                }
                else
                {
                    other += message.Calls;
                }
            }

            merged[detail.Status] = (calls + detail.Calls, messages, other);
        }

        return
        [
            .. merged.Select(pair => new StatusDetail(pair.Key, pair.Value.Calls, [.. pair.Value.Messages.OrderByDescending(message => message.Calls)], pair.Value.Other))
                .OrderByDescending(detail => detail.Calls)
                .ThenBy(detail => detail.Status, StringComparer.Ordinal),
        ];
    }

    /// <summary>
    /// A row per kept message, like ghz's error distribution, and one for a status's calls whose message was not kept: the
    /// report's table shows them as they are, the CLI and the page as <see cref="Lines"/>.
    /// </summary>
    public static IEnumerable<(string Status, long Calls, string Message)> Rows(IReadOnlyList<StatusDetail> details) =>
        details.SelectMany(detail => detail.Messages.Select(message => (detail.Status, message.Calls, Message: Quoted(message.Message)))
            .Append((detail.Status, Calls: detail.OtherMessageCalls, Message: $"other messages (only the first {MaxMessagesPerStatus} distinct ones are kept)"))
            // A kept message has calls: this drops only a row for other messages that no call had.
            .Where(row => row.Calls > 0));

    /// <summary>"50 × FailedPrecondition: 'tenant is suspended'", a line per row.</summary>
    public static IEnumerable<string> Lines(IReadOnlyList<StatusDetail> details) => Rows(details).Select(row => $"{Whole(row.Calls)} × {row.Status}: {row.Message}");

    /// <summary>
    /// The failures in one phrase for a sentence: each status's calls and its most common message,
    /// "100 × PermissionDenied: 'tenant (none) is not allowed'", and how many of its calls said something else.
    /// </summary>
    public static string Describe(IReadOnlyList<StatusDetail> details) => string.Join("; ", details.Select(detail =>
    {
        if (detail.Messages.Count == 0)
        {
            return $"{Whole(detail.Calls)} × {detail.Status}";
        }

        var otherCalls = detail.Calls - detail.Messages[0].Calls;
        var more = otherCalls <= 0 ? "" : $", {Whole(otherCalls)} of them with other messages";
        return $"{Whole(detail.Calls)} × {detail.Status}: {Quoted(detail.Messages[0].Message)}{more}";
    }));

    /// <summary>A run's failures in one phrase: with the server's words when it kept them, else by status as runs stored before them say it ("Unavailable 3").</summary>
    public static string Describe(RunStats stats) => stats.StatusDetails.Count > 0
        ? Describe(stats.StatusDetails)
        : string.Join(", ", stats.StatusCounts.Where(status => status.Key != nameof(StatusCode.OK)).Select(status => $"{status.Key} {status.Value}"));

    /// <summary>A message in quotes, or "no message" for a status the server sent without one.</summary>
    public static string Quoted(string message) => message.Length == 0 ? "(no message)" : $"'{message}'";

    private static string Whole(long value) => value.ToString("N0", System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>A message within <see cref="MaxMessageLength"/>; control characters it still holds are escaped.</summary>
    public static string Bounded(string message) => TargetText.Escape(message, MaxMessageLength);

    /// <summary>One status's calls and messages. A lock per status: a failed call takes it once, for a few comparisons.</summary>
    private sealed class Tally
    {
        private readonly Lock _gate = new();
        private readonly List<string> _messages = new(MaxMessagesPerStatus);
        private readonly long[] _calls = new long[MaxMessagesPerStatus];
        private long _total;
        private long _other;

        public void Add(string message)
        {
            // Compared after the cut: two messages that differ only past it are one. Cut outside the lock (it may allocate).
            var bounded = Bounded(message);
            lock (_gate)
            {
                _total++;
                var at = _messages.IndexOf(bounded);
                if (at >= 0)
                {
                    _calls[at]++;
                }
                else if (_messages.Count < MaxMessagesPerStatus)
                {
                    _calls[_messages.Count]++;
                    _messages.Add(bounded);
                }
                else
                {
                    _other++;
                }
            }
        }

        public StatusDetail ToDetail(StatusCode status)
        {
            lock (_gate)
            {
                var messages = _messages.Select((message, at) => new StatusMessage(message, _calls[at])).OrderByDescending(message => message.Calls);
                return new StatusDetail(status.ToString(), _total, [.. messages], _other);
            }
        }
    }
}

/// <summary>
/// Failed calls of one status and what the server said: the first distinct messages (at most
/// <see cref="StatusDetails.MaxMessagesPerStatus"/>) with their calls, and the calls whose message was none of them.
/// </summary>
public sealed record StatusDetail(string Status, long Calls, IReadOnlyList<StatusMessage> Messages, long OtherMessageCalls);

/// <summary>A message a server sent with a failed call (masked, escaped, cut at <see cref="StatusDetails.MaxMessageLength"/> characters), and how many calls ended with it.</summary>
public sealed record StatusMessage(string Message, long Calls);
