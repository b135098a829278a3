using Spectre.Console;
using Spectre.Console.Rendering;

namespace LoadTest.Output;

/// <summary>On a terminal: a Spectre.Console progress bar per run, redrawn as the engine pushes each snapshot, kept when it ends.</summary>
public sealed class LiveProgress(IAnsiConsole console) : ProgressDisplay
{
    private readonly Dictionary<Guid, ProgressTask> _tasks = [];
    private ProgressContext? _context;

    public override Task<T> ShowAsync<T>(Func<Task<T>> work) =>
        console.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn { Alignment = Justify.Left }, new ProgressBarColumn(), new PercentageColumn(), new ElapsedTimeColumn(), new FiguresColumn())
            .StartAsync(context =>
            {
                _context = context;
                return work();
            });

    public override async Task FollowAsync(RunRecord run, int position, int of, LiveRun live)
    {
        var task = _context!.AddTask(Markup.Escape(Figures.Label(run.Plan.Strategy, position, of)), maxValue: 1);
        _tasks[run.Id] = task;
        await foreach (var snapshot in live.FollowAsync())
        {
            task.Value = Figures.Fraction(snapshot);
            task.Tag = Markup.Escape(Figures.Progress(snapshot));
        }
    }

    public override void Ended(RunRecord run, int position, int of)
    {
        var task = _tasks[run.Id];
        if (run.State == RunState.Completed)
        {
            task.Value = task.MaxValue;
        }

        var colour = run.State == RunState.Completed ? "green" : "red";
        task.Tag = $"[{colour}]{Markup.Escape(Figures.Outcome(run))}[/]";
        task.StopTask();
    }

    /// <summary>The figures of the latest snapshot, or the outcome once the run has ended.</summary>
    private sealed class FiguresColumn : ProgressColumn
    {
        public override IRenderable Render(RenderOptions options, ProgressTask task, TimeSpan deltaTime) => new Markup(task.Tag as string ?? string.Empty);
    }
}
