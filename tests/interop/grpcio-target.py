#!/usr/bin/python3
# interop.paced.Paced (protos/paced.proto) served by Python grpcio, a gRPC stack the project did not write, at a capacity
# the tests know in advance: each Work call holds one of --workers threads (grpcio's ThreadPoolExecutor) for --service-ms
# milliseconds (a sleep, as a call waiting on a database would), so the server answers at most workers ÷ service time
# calls per second and calls beyond the workers queue (4 workers × 20 ms: 200 calls/s, the knee at about 4 in flight).
#
#   /usr/bin/python3 grpcio-target.py [--port 0] [--workers 4] [--service-ms 20] [--max-concurrent-streams N]
#                                     [--stop-with-stdin]
#
# Prints "Now listening on: http://127.0.0.1:<port>" once bound (as grpc-js-target.js does); cleartext only, and no
# server reflection (Debian's python3-grpcio has none): describe it with protos/paced.proto. It needs no generated code:
# Work answers the request's bytes unchanged, which is a valid Job since the request is one.
# Its HTTP/2 settings are grpc core's defaults, as a team's C++, Python or Ruby service has them: a client that pings an
# idle connection more often than every 5 minutes gets GOAWAY too_many_pings (ENHANCE_YOUR_CALM) after two pings.
# It exits when the process that started it is gone (its parent changes), on SIGTERM or SIGINT (letting calls in flight
# finish, bounded), and with --stop-with-stdin when its standard input ends.
import argparse
import os
import signal
import sys
import threading
import time
from concurrent import futures

import grpc

SERVICE = 'interop.paced.Paced'


def bounded(low, high, what):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError(f'{text} is not {what}; it must be a whole number from {low} to {high}')
        return value
    return parse


def options():
    parser = argparse.ArgumentParser(description='interop.paced.Paced on grpcio, at workers ÷ service time calls per second.')
    parser.add_argument('--port', type=bounded(0, 65535, 'a port'), default=0)
    parser.add_argument('--workers', type=bounded(1, 1000, 'a number of worker threads'), default=4)
    parser.add_argument('--service-ms', type=bounded(0, 60000, 'a service time in milliseconds'), default=20)
    parser.add_argument('--max-concurrent-streams', type=bounded(1, 1000000, 'a number of streams'))
    parser.add_argument('--stop-with-stdin', action='store_true', help='exit when standard input ends')
    return parser.parse_args()


def main():
    settings = options()
    service_seconds = settings.service_ms / 1000

    def work(request, context):
        time.sleep(service_seconds)
        return request

    # No deserializer or serializer: the handler is given the request's bytes and its answer is sent as they are.
    handler = grpc.method_handlers_generic_handler(SERVICE, {'Work': grpc.unary_unary_rpc_method_handler(work)})
    channel_options = [] if settings.max_concurrent_streams is None else [('grpc.max_concurrent_streams', settings.max_concurrent_streams)]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=settings.workers), handlers=[handler], options=channel_options)
    port = server.add_insecure_port(f'127.0.0.1:{settings.port}')
    if port == 0:
        print(f'Port {settings.port} on 127.0.0.1 could not be bound.', file=sys.stderr)
        sys.exit(1)
    server.start()
    print(f'Now listening on: http://127.0.0.1:{port}', flush=True)

    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    signal.signal(signal.SIGINT, lambda *_: stopped.set())
    if settings.stop_with_stdin:
        threading.Thread(target=lambda: (sys.stdin.read(), stopped.set()), daemon=True).start()

    # A parent that ends hands its children to another process: polled, since grpcio has no hook for it.
    parent = os.getppid()
    while not stopped.wait(1):
        if os.getppid() != parent:
            break
    server.stop(grace=5).wait(10)


if __name__ == '__main__':
    main()
