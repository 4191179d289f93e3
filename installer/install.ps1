<#
.SYNOPSIS
Installs (or with -Uninstall removes) Gasoline on Windows.

.DESCRIPTION
Puts gasoline-host.exe and gasoline-mcp.exe (the stdio server agents run) in
%LOCALAPPDATA%\Gasoline\bin (built from source when run from a checkout with
Go installed, else the binaries next to this script, or next to -Binary),
registers the native-messaging host for the browsers found (HKCU keys for
Chrome, Chromium, Edge, Brave), installs and starts the Windows service when
run elevated (the daemon otherwise starts on demand), and prints the next
steps. -Uninstall reverses each step; -Purge also deletes the state folder.

Environment: GASOLINE_BIN (same as -Binary), GASOLINE_SKIP_SERVICE=1 (same as
-NoService; tests set it), GASOLINE_HOME (state folder).

.EXAMPLE
powershell -ExecutionPolicy Bypass -File installer\install.ps1 -Yes
#>
[CmdletBinding()]
param(
    [switch]$Yes,
    [switch]$Uninstall,
    [switch]$Purge,
    [switch]$NoService,
    [string]$BinDir = (Join-Path $env:LOCALAPPDATA 'Gasoline\bin'),
    [string]$Binary = $env:GASOLINE_BIN
)

$ErrorActionPreference = 'Stop'
Set-StrictMode -Version 3

$ScriptDir = Split-Path -Parent $MyInvocation.MyCommand.Path
$RepoRoot = Split-Path -Parent $ScriptDir
$Dest = Join-Path $BinDir 'gasoline-host.exe'
$SlimDest = Join-Path $BinDir 'gasoline-mcp.exe'
if ($env:GASOLINE_SKIP_SERVICE -eq '1') { $NoService = $true }

function Fail([string]$msg) {
    Write-Error "install.ps1: $msg" -ErrorAction Continue
    exit 1
}

function Confirm-Step([string]$question) {
    if ($Yes) { return }
    $answer = Read-Host "$question [y/N]"
    if ($answer -notmatch '^(y|yes)$') { Fail 'cancelled' }
}

function Test-Checkout {
    $gomod = Join-Path $RepoRoot 'go.mod'
    return (Test-Path $gomod) -and (Test-Path (Join-Path $RepoRoot 'host')) -and
        (Select-String -Path $gomod -Pattern '^module github.com/gasoline-mcp/gasoline$' -Quiet)
}

function Test-Admin {
    $id = [Security.Principal.WindowsIdentity]::GetCurrent()
    return ([Security.Principal.WindowsPrincipal]$id).IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
}

function Get-StateDir {
    if ($env:GASOLINE_HOME) { return $env:GASOLINE_HOME }
    return (Join-Path $env:LOCALAPPDATA 'Gasoline')
}

# Invoke-Host runs gasoline-host, shows its output and reports whether it
# succeeded (the output goes to the host, not into the return value).
function Invoke-Host {
    & $script:HostExe @args | Out-Host
    return ($LASTEXITCODE -eq 0)
}

# Install-File moves $src into place at $dest. A running exe cannot be
# overwritten but can be renamed: the old one is moved aside first.
function Install-File([string]$src, [string]$dest) {
    $tmp = "$dest.$PID.tmp.exe"
    Copy-Item -Force $src $tmp
    $old = "$dest.old"
    if (Test-Path $dest) {
        Remove-Item -Force $old -ErrorAction SilentlyContinue
        Move-Item -Force $dest $old
    }
    Move-Item -Force $tmp $dest
    Remove-Item -Force $old -ErrorAction SilentlyContinue
    Write-Output "Installed $dest"
}

function Install-Binary {
    New-Item -ItemType Directory -Force -Path $BinDir | Out-Null
    if (-not $Binary -and (Test-Checkout) -and (Get-Command go -ErrorAction SilentlyContinue)) {
        Write-Output "Building gasoline-host and gasoline-mcp from $RepoRoot"
        $build = Join-Path ([IO.Path]::GetTempPath()) "gasoline-build-$PID"
        New-Item -ItemType Directory -Force -Path $build | Out-Null
        Push-Location $RepoRoot
        try {
            & go build -trimpath -o (Join-Path $build 'gasoline-host.exe') ./host
            if ($LASTEXITCODE -eq 0) { & go build -trimpath -o (Join-Path $build 'gasoline-mcp.exe') ./mcp }
        } finally { Pop-Location }
        if ($LASTEXITCODE -ne 0) { Fail 'go build failed' }
        Install-File (Join-Path $build 'gasoline-host.exe') $Dest
        Install-File (Join-Path $build 'gasoline-mcp.exe') $SlimDest
        Remove-Item -Recurse -Force $build -ErrorAction SilentlyContinue
        return
    }
    $found = $Binary
    if ($found) {
        if (-not (Test-Path $found -PathType Leaf)) { Fail "no binary at $found" }
    } else {
        $arch = 'amd64'
        if ($env:PROCESSOR_ARCHITECTURE -eq 'ARM64') { $arch = 'arm64' }
        $candidates = @((Join-Path $ScriptDir 'gasoline-host.exe'), (Join-Path $ScriptDir "gasoline-host-windows-$arch.exe"))
        $found = $candidates | Where-Object { Test-Path $_ -PathType Leaf } | Select-Object -First 1
        if (-not $found) { Fail 'no gasoline-host.exe next to this script and not a checkout with Go installed; pass -Binary PATH' }
    }
    Write-Output "Installing $found"
    Install-File $found $Dest
    # gasoline-mcp ships beside gasoline-host (gasoline-mcp-windows-<arch>.exe
    # beside gasoline-host-windows-<arch>.exe in a release).
    $dir = Split-Path -Parent $found
    $slims = @((Join-Path $dir ((Split-Path -Leaf $found) -replace 'gasoline-host', 'gasoline-mcp')), (Join-Path $dir 'gasoline-mcp.exe'))
    $slim = $slims | Where-Object { ($_ -ne $found) -and (Test-Path $_ -PathType Leaf) } | Select-Object -First 1
    if ($slim) {
        Install-File $slim $SlimDest
    } else {
        Write-Warning "no gasoline-mcp.exe beside ${found}: agents' configs will run $Dest --mcp, which starts slower"
    }
}

function Show-NextSteps {
    Write-Output ''
    Write-Output 'Next steps'
    Write-Output ''
    Write-Output '1. Load the extension: open chrome://extensions (edge://extensions, brave://extensions),'
    if ((Test-Checkout) -and (Test-Path (Join-Path $RepoRoot 'extension\manifest.json'))) {
        Write-Output "   turn on Developer mode, click ""Load unpacked"" and choose $(Join-Path $RepoRoot 'extension')"
    } else {
        Write-Output '   turn on Developer mode, click "Load unpacked" and choose the unzipped gasoline-extension folder'
    }
    Write-Output ''
    Write-Output "2. Connect your agent (stdio is recommended). '$Dest mcp-config --client NAME' prints one client"
    Write-Output '   (claude, codex, gemini, cursor, json):'
    Write-Output ''
    & $Dest mcp-config | ForEach-Object { "   $_" }
    Write-Output ''
    Write-Output "3. Check everything: $Dest doctor"
    $userPath = [Environment]::GetEnvironmentVariable('Path', 'User')
    if (-not (($userPath -split ';') -contains $BinDir)) {
        Write-Output ''
        Write-Output "Note: $BinDir is not on your PATH. To add it:"
        Write-Output "   [Environment]::SetEnvironmentVariable('Path', [Environment]::GetEnvironmentVariable('Path','User') + ';$BinDir', 'User')"
    }
}

function Install-Gasoline {
    Confirm-Step "Install gasoline-host and gasoline-mcp into $BinDir and register them with your browsers?"
    Install-Binary
    $script:HostExe = $Dest

    Write-Output ''
    Write-Output 'Registering the native-messaging host:'
    if (-not (Invoke-Host install)) {
        Write-Warning "no browser registered; once one is installed, run: $Dest install (or --browser chrome|chromium|edge|brave|all)"
    }

    Write-Output ''
    if ($NoService) {
        Write-Output 'Skipping the OS service (GASOLINE_SKIP_SERVICE=1 or -NoService).'
    } elseif (-not (Test-Admin)) {
        Write-Output 'Not elevated: skipping the Windows service (rerun from an administrator prompt to start the daemon at boot).'
        Write-Output 'The daemon starts on demand when Chrome or an MCP client needs it.'
    } elseif (-not ((Invoke-Host service install) -and (Invoke-Host service start))) {
        Write-Warning 'no autostart service (see above); the daemon starts on demand when Chrome or an MCP client needs it'
    }
    Show-NextSteps
}

# Stop-Daemon ends the daemon named in the state file, if it is gasoline-host.
function Stop-Daemon {
    $stateFile = Join-Path (Get-StateDir) 'state.json'
    if (-not (Test-Path $stateFile)) { return }
    try { $state = Get-Content -Raw $stateFile | ConvertFrom-Json } catch { return }
    $proc = Get-Process -Id $state.pid -ErrorAction SilentlyContinue
    if ($proc -and $proc.ProcessName -eq 'gasoline-host') {
        Write-Output "Stopping the daemon (pid $($state.pid))"
        Stop-Process -Id $state.pid -Force
    }
}

function Uninstall-Gasoline {
    $script:HostExe = $Dest
    if (-not (Test-Path $Dest)) {
        $cmd = Get-Command gasoline-host -ErrorAction SilentlyContinue
        if (-not $cmd) { Fail "gasoline-host is not in $BinDir nor on PATH; nothing to uninstall with" }
        $script:HostExe = $cmd.Source
    }
    Confirm-Step "Remove gasoline-host ($script:HostExe), its browser registrations and its service?"

    if ($NoService) {
        Write-Output 'Skipping the OS service (GASOLINE_SKIP_SERVICE=1 or -NoService).'
    } elseif (Test-Admin) {
        if (-not (Invoke-Host service uninstall)) { Write-Warning 'could not remove the service (see above)' }
    } else {
        Write-Output 'Not elevated: leaving any Windows service in place (rerun elevated to remove it).'
    }
    Stop-Daemon

    Write-Output 'Removing the native-messaging host registrations:'
    if (-not (Invoke-Host uninstall)) { Write-Warning 'some registrations could not be removed (see above)' }

    if ($script:HostExe -eq $Dest) {
        Remove-Item -Force $Dest
        Write-Output "Removed $Dest"
        if (Test-Path $SlimDest) {
            Remove-Item -Force $SlimDest
            Write-Output "Removed $SlimDest"
        }
        if (-not (Get-ChildItem -Force $BinDir | Select-Object -First 1)) {
            Remove-Item -Force $BinDir
            Write-Output "Removed empty folder $BinDir"
        }
    } else {
        Write-Output "Left $script:HostExe in place (not installed by this script in $BinDir)."
    }

    $dir = Get-StateDir
    if ($Purge) {
        if ((Split-Path -Leaf $dir) -eq 'Gasoline' -or $dir -eq $env:GASOLINE_HOME) {
            if (Test-Path $dir) {
                Remove-Item -Recurse -Force $dir
                Write-Output "Removed the state folder $dir"
            }
        } else {
            Write-Warning "not purging unexpected state folder $dir"
        }
    } elseif (Test-Path $dir) {
        Write-Output "Kept your state, logs and policy in $dir (-Purge removes them)."
    }
}

if ($Uninstall) { Uninstall-Gasoline } else { Install-Gasoline }
