namespace GrpcBestPractices.Tests.Infrastructure;

/// <summary>A fresh folder under the system's temp folder, deleted with everything in it when the test ends.</summary>
public sealed class TemporaryFolder : IDisposable
{
    public string Path { get; } = Directory.CreateTempSubdirectory("grpc-best-practices-").FullName;

    public string File(string name) => System.IO.Path.Combine(Path, name);

    public void Dispose() => Directory.Delete(Path, recursive: true);
}
