#!/bin/sh
# Add Scatter Playground to the desktop's application menu (per user, no root):
#   packaging/linux/install-desktop-entry.sh [EXECUTABLE]
# EXECUTABLE defaults to .venv/bin/scatter-playground of this checkout; pass
# dist/scatter-playground/scatter-playground for the PyInstaller bundle.
# Undo: rm ~/.local/share/applications/scatter-playground.desktop
#       ~/.local/share/icons/hicolor/*/apps/scatter-playground.{png,svg}
set -eu
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
exe=${1:-$repo/.venv/bin/scatter-playground}
[ -x "$exe" ] || { echo "error: $exe is not an executable (run make first, or pass the app's path)" >&2; exit 1; }
exe=$(cd "$(dirname "$exe")" && pwd)/$(basename "$exe")
data=${XDG_DATA_HOME:-$HOME/.local/share}
for n in 16 32 48 64 128 256 512; do
    install -D -m 644 "$repo/assets/icons/scatter-playground-$n.png" "$data/icons/hicolor/${n}x${n}/apps/scatter-playground.png"
done
install -D -m 644 "$repo/assets/icons/scatter-playground.svg" "$data/icons/hicolor/scalable/apps/scatter-playground.svg"
mkdir -p "$data/applications"
sed "s|^Exec=.*|Exec=\"$exe\"|" "$here/scatter-playground.desktop" > "$data/applications/scatter-playground.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$data/applications" || true
echo "installed $data/applications/scatter-playground.desktop (Exec=$exe)"
