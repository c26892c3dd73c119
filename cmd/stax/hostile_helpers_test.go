package main

import "github.com/stax-dev/stax/pkg/install"

const RecordFileForTest = install.RecordFile
