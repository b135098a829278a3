namespace LoadEngine.Runs;

/// <summary>
/// When each call of an arrival-rate load is due: the rate is piecewise linear in time (one constant piece for the open
/// load, one piece per stage for a ramping one), and call <c>i</c> is due when <c>i</c> calls' worth of rate has passed.
/// </summary>
public sealed class ArrivalSchedule
{
    private readonly Piece[] _pieces;

    private ArrivalSchedule(IEnumerable<(double Duration, double From, double To)> pieces)
    {
        var list = new List<Piece>();
        double start = 0, arrivals = 0;
        foreach (var (duration, from, to) in pieces)
        {
            list.Add(new Piece(start, duration, from, to, arrivals));
            start += duration;
            arrivals += (from + to) / 2 * duration;
        }

        _pieces = [.. list];
        Seconds = start;
        Arrivals = arrivals;
    }

    /// <summary>How long the schedule lasts.</summary>
    public double Seconds { get; }

    /// <summary>How many calls fall due in all (fractional: the last may not complete).</summary>
    public double Arrivals { get; }

    public static ArrivalSchedule Constant(double rate, double seconds) => new([(seconds, rate, rate)]);

    /// <summary>From <paramref name="startRate"/>, each stage moves the rate linearly to its target over its duration.</summary>
    public static ArrivalSchedule Ramping(double startRate, IReadOnlyList<RampStage> stages, double? atMostSeconds = null)
    {
        var pieces = new List<(double, double, double)>();
        var rate = startRate;
        var left = atMostSeconds ?? double.PositiveInfinity;
        foreach (var stage in stages)
        {
            if (left <= 0)
            {
                break;
            }

            // A stage cut short by the plan's duration ends at the rate it reached by then.
            var duration = Math.Min(stage.Duration, left);
            var end = rate + (stage.Target - rate) * (duration / stage.Duration);
            pieces.Add((duration, rate, end));
            rate = stage.Target;
            left -= duration;
        }

        return new(pieces);
    }

    /// <summary>Seconds from the start at which call <paramref name="index"/> is due, or null when it falls after the end.</summary>
    public double? DueAt(long index)
    {
        foreach (var piece in _pieces)
        {
            var inPiece = (piece.From + piece.To) / 2 * piece.Duration;
            if (index < piece.ArrivalsBefore + inPiece)
            {
                return piece.Start + piece.TimeOf(index - piece.ArrivalsBefore);
            }
        }

        return null;
    }

    private readonly record struct Piece(double Start, double Duration, double From, double To, double ArrivalsBefore)
    {
        // Arrivals by τ into the piece: From·τ + (To − From)/(2·Duration)·τ²; solve for the τ at which there have been n.
        public double TimeOf(double n)
        {
            var a = (To - From) / (2 * Duration);
            if (Math.Abs(a) < 1e-12)
            {
                return From > 0 ? n / From : 0;
            }

            var root = Math.Sqrt(Math.Max(0, From * From + 4 * a * n));
            return Math.Clamp((root - From) / (2 * a), 0, Duration);
        }
    }
}
