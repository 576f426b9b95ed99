package submit

import (
	"strings"

	"github.com/kite-sched/kite/classad/ast"
	"github.com/kite-sched/kite/internal/attr"
)

// Commands of the java universe, whose executable is a class file the
// execution machine's JVM runs, the first argument the class with main
// (condor_submit man page: arguments, jar_files, java_vm_args).
var (
	jarFilesKeys  = []string{"jar_files", "jarfiles"}
	javaVMArgKeys = []string{"java_vm_args", "javavmargs", "java_vm_arguments", "javavmarguments"}
)

// isJava reports whether the job is in the java universe.
func (b *builder) isJava() bool {
	u, ok := b.attr("JobUniverse")
	l, isLit := u.(*ast.Literal)
	return ok && isLit && l.Kind == ast.IntLit && l.Int == attr.UniverseJava
}

// runsOnSchedd reports whether the job is in the scheduler or local
// universe, which the schedd runs on its own host.
func (b *builder) runsOnSchedd() bool {
	u, ok := b.attr("JobUniverse")
	l, isLit := u.(*ast.Literal)
	return ok && isLit && l.Kind == ast.IntLit && (l.Int == attr.UniverseScheduler || l.Int == attr.UniverseLocal)
}

// stepJava sets what a java universe job needs: its class file and jar
// files sent as inputs (the executable itself is the machine's JVM:
// Cmd = "java", TransferExecutable = false, as condor_submit writes it),
// JarFiles and JavaVMArgs. The class to run is the first argument.
func stepJava(b *builder) error {
	if !b.isJava() {
		return nil
	}
	if args, m := b.value(argumentsKeys...); strings.TrimSpace(strings.Trim(args, `"`)) == "" {
		return b.errorf(m, "in the java universe, arguments must start with the name of the class that has main (arguments = MyClass ...)")
	}
	jars, _ := b.value(jarFilesKeys...)
	if jars != "" {
		b.setString("JarFiles", jars)
	}
	if vm, _ := b.value(javaVMArgKeys...); vm != "" {
		b.setString("JavaVMArgs", vm)
	}
	if b.attrString("ShouldTransferFiles") == transferNo {
		return nil
	}
	in := commaList(b.attrString("TransferInput"))
	if cmd := b.attrString("Cmd"); cmd != "java" {
		in = append(in, cmd)
	}
	in = append(in, commaList(jars)...)
	b.setString("TransferInput", strings.Join(in, ","))
	b.setString("Cmd", "java")
	b.setBool("TransferExecutable", false)
	return nil
}
