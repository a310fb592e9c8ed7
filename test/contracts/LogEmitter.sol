// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Emits a log with the topics and data it is given: the logs of any event
/// signature, encoded by the caller (the ABI types test of custom datasets).
contract LogEmitter {
    function emitLog(bytes32[] calldata topics, bytes calldata data) external {
        bytes memory d = data;
        uint256 n = topics.length;
        require(n >= 1 && n <= 4, "one to four topics");
        bytes32 t0 = topics[0];
        bytes32 t1 = n > 1 ? topics[1] : bytes32(0);
        bytes32 t2 = n > 2 ? topics[2] : bytes32(0);
        bytes32 t3 = n > 3 ? topics[3] : bytes32(0);
        assembly {
            let p := add(d, 32)
            let len := mload(d)
            switch n
            case 1 { log1(p, len, t0) }
            case 2 { log2(p, len, t0, t1) }
            case 3 { log3(p, len, t0, t1, t2) }
            default { log4(p, len, t0, t1, t2, t3) }
        }
    }
}
