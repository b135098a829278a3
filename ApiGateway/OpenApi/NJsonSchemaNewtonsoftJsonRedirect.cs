using System.Reflection;
using System.Runtime.Loader;

namespace ApiGateway.OpenApi;

/// <summary>
/// NSwag 14.8.0 is compiled against NJsonSchema.NewtonsoftJson 11.6.2, which this machine's package registry does not
/// serve, so Directory.Packages.props pins the 11.6.1 it does serve; at run time NSwag then asks for version 11.6.2.0 and
/// the runtime refuses the 11.6.1.0 shipped beside the app. This hands NSwag that shipped 11.6.1 build, for that one
/// assembly name only. Delete this class and its call in <see cref="SwaggerSetup.AddSwaggerDocs"/> (and the pin) when
/// the registry serves NJsonSchema.NewtonsoftJson 11.6.2, or when NSwag's packages agree on one version.
/// </summary>
public static class NJsonSchemaNewtonsoftJsonRedirect
{
    private const string Name = "NJsonSchema.NewtonsoftJson";

    public static void Register() => AssemblyLoadContext.Default.Resolving += Resolve;

    private static Assembly? Resolve(AssemblyLoadContext context, AssemblyName requested)
    {
        if (requested.Name != Name || requested.Version is not { Major: 11, Minor: 6 } wanted)
        {
            return null;
        }

        var path = Path.Combine(AppContext.BaseDirectory, Name + ".dll");
        if (!File.Exists(path) || AssemblyName.GetAssemblyName(path).Version is not { Major: 11, Minor: 6 } shipped || shipped >= wanted)
        {
            return null;
        }

        return context.LoadFromAssemblyPath(path);
    }
}
