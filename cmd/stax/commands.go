package main

import "github.com/spf13/cobra"

// addCommands adds stax's commands to root, in the order its help lists
// them, each built from f.
func addCommands(root *cobra.Command, f *factory) {
	root.AddCommand(
		newValidateCmd(f, nil),
		newInitCmd(f, nil),
		newPackCmd(f, nil),
		newInspectCmd(f, nil),
		newDiffCmd(f, nil),
		newVersionCmd(f, nil),
		newRenderCmd(f, nil),
		newBumpCmd(f, nil),
		newListCmd(f, nil),
		newShowCmd(f, nil),
		newMCPCmd(f, nil),
		newPushCmd(f, nil),
		newPullCmd(f, nil),
		newCopyCmd(f, nil),
		newLoginCmd(f, nil),
		newLogoutCmd(f, nil),
		newResolveCmd(f, nil),
		newTagsCmd(f, nil),
		newInstallCmd(f, nil),
		newAddCmd(f, nil),
		newRemoveCmd(f, nil),
		newOutdatedCmd(f, nil),
		newUpdateCmd(f, nil),
		newUninstallCmd(f, nil),
		newVerifyCmd(f, nil),
		newSignCmd(f, nil),
		newKeyCmd(f),
		newStoreCmd(f),
		newApplyCmd(f, nil),
		newProposeCmd(f, nil),
		newNewCmd(f),
		newDocsCmd(f, nil),
	)
}
