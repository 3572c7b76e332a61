import Foundation
import RevenueDot

exit(RevenueDotCLI.run(Array(CommandLine.arguments.dropFirst())))
