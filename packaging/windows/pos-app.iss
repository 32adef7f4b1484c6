; Inno Setup script of pos-app for Windows: one installer per store, from the one-folder
; bundle that `make package STORE=<id>` builds on a Windows build machine (dist\<id>\).
;
;   iscc /DStore=store-042 /DVersion=0.1.0 packaging\windows\pos-app.iss
;
; (from the repository's root; Version is pyproject.toml's; the installer lands in dist\).
; Per-user install by default (no administrator needed: %LOCALAPPDATA%\Programs\pos-app);
; an administrator may choose "all users" (C:\Program Files\pos-app) in the first page or
; with /ALLUSERS. Silent: pos-app-<store>-<version>-setup.exe /VERYSILENT /CURRENTUSER.
;
; What it never touches: the data folder (%LOCALAPPDATA%\pos-app: store.toml, journal,
; cart, staff, logs) and the key-hash in Windows Credential Manager. An upgrade replaces
; the program folder only; uninstalling leaves the data, so that a reinstall (or an
; auditor) finds the journal. packaging\README.md says how to remove them by hand.

#ifndef Store
  #define Store "demo"
#endif
#ifndef Version
  #error Pass the version: iscc /DVersion=<pyproject.toml version> ...
#endif
#define Bundle "..\..\dist\" + Store

[Setup]
; One AppId for every store's installer: a station has one pos-app, and a new store
; profile (or version) installs over the old one.
AppId={{6F3B1C52-4C1E-4B7A-9E0D-3A5C2B8D9F41}
AppName=pos-app
AppVersion={#Version}
AppVerName=pos-app {#Version} ({#Store})
AppPublisher=pos-app
VersionInfoVersion={#Version}
DefaultDirName={autopf}\pos-app
DefaultGroupName=pos-app
DisableProgramGroupPage=yes
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog commandline
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=pos-app-{#Store}-{#Version}-setup
SetupIconFile=..\..\build\packaging\pos-app.ico
UninstallDisplayIcon={app}\pos-app-window.exe
Compression=lzma2/max
SolidCompression=yes
WizardStyle=modern
; the app must not run while its files are replaced
CloseApplications=yes
RestartApplications=no

[Languages]
Name: "english"; MessagesFile: "compiler:Default.isl"

[Tasks]
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"

[InstallDelete]
; an upgrade starts from a clean program folder: no stale library of an older bundle is
; left to be loaded (the data folder is elsewhere and is not touched)
Type: filesandordirs; Name: "{app}\_internal"

[Files]
Source: "{#Bundle}\pos-app-window.exe"; DestDir: "{app}"; Flags: ignoreversion
Source: "{#Bundle}\pos-app.exe"; DestDir: "{app}"; Flags: ignoreversion
Source: "{#Bundle}\store-profile.toml"; DestDir: "{app}"; Flags: ignoreversion
Source: "{#Bundle}\_internal\*"; DestDir: "{app}\_internal"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{autoprograms}\pos-app"; Filename: "{app}\pos-app-window.exe"; WorkingDir: "{app}"
Name: "{autodesktop}\pos-app"; Filename: "{app}\pos-app-window.exe"; WorkingDir: "{app}"; Tasks: desktopicon

[Run]
Filename: "{app}\pos-app-window.exe"; Description: "{cm:LaunchProgram,pos-app}"; \
    Flags: nowait postinstall skipifsilent

[UninstallDelete]
; only what the program folder gained at run time (Python caches); never the data folder
Type: filesandordirs; Name: "{app}\_internal\__pycache__"

[Code]
// After the files are in place: pos-app --self-test (a temporary data folder, the built-in
// sandbox: no store data, no money). A failure is said, with what to run to see why.
procedure CurStepChanged(CurStep: TSetupStep);
var
  ResultCode: Integer;
begin
  if CurStep = ssPostInstall then
  begin
    WizardForm.StatusLabel.Caption := 'Checking the installation (pos-app --self-test)...';
    if not Exec(ExpandConstant('{app}\pos-app.exe'), '--self-test', ExpandConstant('{app}'), SW_HIDE,
                ewWaitUntilTerminated, ResultCode) or (ResultCode <> 0) then
      SuppressibleMsgBox('pos-app is installed, but its self-test failed (exit ' + IntToStr(ResultCode) + '). ' +
        'Open a command prompt and run "' + ExpandConstant('{app}\pos-app.exe') + '" --self-test to see which step ' +
        'failed, and send that output to your pos-app support.', mbError, MB_OK, IDOK);
  end;
end;
