using Microsoft.Extensions.Options;

namespace ApiGateway.Targets;

public static class TargetSetup
{
    /// <summary>The configured targets, checked at start; an engine for each, and their descriptions on demand (and in the background at start).</summary>
    public static IServiceCollection AddTargets(this IServiceCollection services)
    {
        services.AddOptions<TargetsOptions>()
            .Configure<IConfiguration>((options, configuration) =>
            {
                foreach (var section in configuration.GetSection(TargetsOptions.Section).GetChildren())
                {
                    var target = new TargetOptions();
                    section.Bind(target);
                    // One file may be given as a plain value (Targets:x:Proto=a.proto) as well as a list (Targets:x:Proto:0).
                    if (section[nameof(TargetOptions.Proto)] is { Length: > 0 } proto)
                    {
                        target.Proto = [proto];
                    }

                    if (section[nameof(TargetOptions.ImportPaths)] is { Length: > 0 } importPath)
                    {
                        target.ImportPaths = [importPath];
                    }

                    options.Targets[section.Key] = target;
                }
            })
            .ValidateOnStart();
        services.AddSingleton<TargetsValidation>();
        services.AddSingleton<IValidateOptions<TargetsOptions>>(provider => provider.GetRequiredService<TargetsValidation>());
        services.AddSingleton<TargetEngines>();
        services.AddSingleton<TargetDescriptions>();
        services.AddSingleton<TargetPlans>();
        services.AddHostedService(provider => provider.GetRequiredService<TargetDescriptions>());
        return services;
    }
}
