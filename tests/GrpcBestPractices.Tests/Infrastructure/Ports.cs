using System.Net;
using System.Net.Sockets;

namespace GrpcBestPractices.Tests.Infrastructure;

public static class Ports
{
    /// <summary>A loopback port nothing listens on right now: a dead service address, or one to hand an app.</summary>
    public static int Unused()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    public static bool Listening(int port)
    {
        try
        {
            using var client = new TcpClient();
            client.Connect(IPAddress.Loopback, port);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }
}
