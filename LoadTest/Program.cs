using LoadEngine;
using LoadTest;

EngineProcess.SizeSharedArrayPoolForConcurrentStreams();
using var interrupt = new Interrupt();
return await LoadTestCli.RunAsync(args, Console.Out, Console.Error, interrupt);
