<#
.SYNOPSIS
Removes what install.ps1 installed: same as install.ps1 -Uninstall.

.EXAMPLE
powershell -ExecutionPolicy Bypass -File installer\uninstall.ps1 -Yes
#>
[CmdletBinding()]
param(
    [switch]$Yes,
    [switch]$Purge,
    [switch]$NoService,
    [string]$BinDir = (Join-Path $env:LOCALAPPDATA 'Gasoline\bin')
)
$ErrorActionPreference = 'Stop'
& (Join-Path (Split-Path -Parent $MyInvocation.MyCommand.Path) 'install.ps1') -Uninstall -Yes:$Yes -Purge:$Purge -NoService:$NoService -BinDir $BinDir
exit $LASTEXITCODE
