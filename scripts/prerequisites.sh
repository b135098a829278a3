# Sourced by test.sh and run.sh. `prerequisites <need>...` makes sure each need is on this machine: the .NET 10 SDK is
# checked (it is not a Debian package), everything else is installed from Debian/Ubuntu packages, non-interactively and
# only when missing. Where that cannot be done (not root and no password-less sudo, or no apt-get), it names the
# packages to install and returns non-zero, so no test is ever skipped for want of them.
#   needs: dotnet  node (nodejs, npm)  chromium  postgresql (initdb, pg_ctl)  setsid (util-linux)  grpcio (python3-grpcio)

prerequisites() {
  local who=${PREREQUISITES_FOR:-${0##*/}} missing=() need
  for need in "$@"; do
    case $need in
      dotnet)
        if ! command -v dotnet >/dev/null || ! dotnet --list-sdks 2>/dev/null | grep -q '^10\.'; then
          echo "$who: the .NET 10 SDK is needed and 'dotnet --list-sdks' shows none; install it (https://dotnet.microsoft.com/download/dotnet/10.0) and try again." >&2
          return 1
        fi ;;
      node) { command -v node && command -v npm; } >/dev/null || missing+=(nodejs npm) ;;
      chromium) [[ -x /usr/bin/chromium ]] || missing+=(chromium) ;;
      postgresql) compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || missing+=(postgresql) ;;
      setsid) command -v setsid >/dev/null || missing+=(util-linux) ;;
      # Debian's interpreter, which the package installs into (a python3 earlier on PATH, such as pyenv's, may lack it).
      grpcio) /usr/bin/python3 -c 'import grpc' 2>/dev/null || missing+=(python3-grpcio) ;;
      *) echo "$who: unknown prerequisite '$need'" >&2; return 2 ;;
    esac
  done
  ((${#missing[@]} == 0)) && return 0

  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      sudo=(sudo -n)
    else
      echo "$who: missing Debian packages: ${missing[*]}. Install them (sudo apt-get install ${missing[*]}) or run this as root, which installs them itself." >&2
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null; then
    echo "$who: missing: ${missing[*]} (Debian package names), and this machine has no apt-get; install the same programs with its package manager." >&2
    return 1
  fi

  echo "$who: installing ${missing[*]} (apt-get, once)..."
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  if [[ " ${missing[*]} " == *" postgresql "* ]]; then
    # The tests start PostgreSQL servers of their own (initdb, pg_ctl); the cluster the package may have started is not used.
    "${sudo[@]}" service postgresql stop >/dev/null 2>&1 || true
  fi
}
