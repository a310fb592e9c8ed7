// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// Value moves inside contract calls, for native-transfer tests: plain calls,
/// a failed call whose value stays, a contract creation with value, a
/// self-destruct paying out, and a delegatecall (whose value is not a payment).
contract Payments {
    event Done();

    receive() external payable {}

    /// Pays half of msg.value to each of a and b.
    function split(address payable a, address payable b) external payable {
        a.transfer(msg.value / 2);
        b.transfer(msg.value - msg.value / 2);
    }

    /// Pays `good` 1/4 of msg.value; the call to `bad` reverts and its value stays here.
    function payWithFailure(address payable good, address bad) external payable {
        (bool ok, ) = good.call{value: msg.value / 4}("");
        require(ok);
        (bool ok2, ) = bad.call{value: msg.value / 4}("");
        require(!ok2);
    }

    /// A failed inner frame that itself made a payment: both undone.
    function nestedFailure(address payable inner) external payable {
        try this.payAndRevert(inner) {} catch {}
    }

    function payAndRevert(address payable inner) external {
        inner.transfer(1 ether / 100);
        revert("undo");
    }

    /// Creates a child with value, then the child self-destructs to `beneficiary`.
    function createAndDestroy(address payable beneficiary) external payable returns (address) {
        Child c = new Child{value: msg.value}();
        c.destroy(beneficiary);
        return address(c);
    }

    /// A delegatecall carrying msg.value: the value belongs to this frame already.
    function viaDelegate() external payable {
        (bool ok, ) = address(this).delegatecall(abi.encodeWithSelector(this.noop.selector));
        require(ok);
    }

    function noop() external payable {
        emit Done();
    }

    /// Always reverts: a top-level transaction with value that fails.
    function fail() external payable {
        revert("no");
    }
}

contract Child {
    constructor() payable {}

    function destroy(address payable beneficiary) external {
        selfdestruct(beneficiary);
    }
}

contract Reverter {
    receive() external payable {
        revert("refused");
    }
}
