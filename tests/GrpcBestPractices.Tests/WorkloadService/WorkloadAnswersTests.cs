using PerformanceService.Workloads;
using Workloads;

namespace GrpcBestPractices.Tests.WorkloadService;

/// <summary>The service's kept answers: made once per kind, on first use, and shared by every path and every call after.</summary>
public sealed class WorkloadAnswersTests
{
    [Fact]
    public void AKindsItemsAreMadeOnceAndIdsPastTheRangeGetTheSameKeptItem()
    {
        var made = 0;
        Probe Make(int id)
        {
            Interlocked.Increment(ref made);
            return new Probe(id);
        }

        var first = WorkloadAnswers.Item(Make, 7);
        var again = WorkloadAnswers.Item(Make, WorkloadRules.ItemRange + 7);

        Assert.Same(first, again);
        Assert.Equal(7, first.Id);
        Assert.Equal(WorkloadRules.ItemRange, made);
    }

    [Fact]
    public void TheContractFirstShapeIsConvertedOnceAndKeptApartFromThePlainClasses()
    {
        var contract = WorkloadAnswers.Item(static id => WorkloadData.Book(id).ToContract(), 42);

        Assert.Same(contract, WorkloadAnswers.Item(static id => WorkloadData.Book(id).ToContract(), 42));
        Assert.Equal(WorkloadChecksum.Of(WorkloadAnswers.Item(WorkloadData.Book, 42)), WorkloadChecksum.Of(contract));
    }

    [Fact]
    public void AnAnswerWithoutAnIdIsKeptOnce()
    {
        var made = 0;

        var first = WorkloadAnswers.One(() => new Lone(Interlocked.Increment(ref made)));

        Assert.Same(first, WorkloadAnswers.One(() => new Lone(Interlocked.Increment(ref made))));
        Assert.Equal(1, made);
    }

    private sealed record Probe(int Id);

    private sealed record Lone(int Made);
}
