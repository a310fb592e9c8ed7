// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// stETH-style: ETH in, stETH minted 1:1, with the real Submitted event.
contract StETH {
    string public constant symbol = "stETH";
    uint8 public constant decimals = 18;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Submitted(address indexed sender, uint256 amount, address referral);

    function submit(address referral) external payable returns (uint256) {
        balanceOf[msg.sender] += msg.value;
        emit Transfer(address(0), msg.sender, msg.value);
        emit Submitted(msg.sender, msg.value, referral);
        return msg.value;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount;
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        allowance[from][msg.sender] -= amount;
        balanceOf[from] -= amount;
        balanceOf[to] += amount;
        emit Transfer(from, to, amount);
        return true;
    }
}

/// WithdrawalQueue-style: requests lock stETH; a claim pays ETH from inside the contract (an internal transfer).
contract WithdrawalQueue {
    StETH public immutable steth;
    uint256 public lastRequestId;
    mapping(uint256 => address) public ownerOf;
    mapping(uint256 => uint256) public amountOf;

    event WithdrawalRequested(uint256 indexed requestId, address indexed requestor, address indexed owner, uint256 amountOfStETH, uint256 amountOfShares);
    event WithdrawalClaimed(uint256 indexed requestId, address indexed owner, address indexed receiver, uint256 amountOfETH);

    constructor(StETH steth_) {
        steth = steth_;
    }

    receive() external payable {}

    function requestWithdrawals(uint256[] calldata amounts, address owner) external returns (uint256[] memory ids) {
        ids = new uint256[](amounts.length);
        for (uint256 i = 0; i < amounts.length; i++) {
            steth.transferFrom(msg.sender, address(this), amounts[i]);
            uint256 id = ++lastRequestId;
            ownerOf[id] = owner;
            amountOf[id] = amounts[i];
            ids[i] = id;
            emit WithdrawalRequested(id, msg.sender, owner, amounts[i], (amounts[i] * 9) / 10);
        }
    }

    function claimWithdrawal(uint256 requestId) external {
        require(ownerOf[requestId] == msg.sender, "not the owner");
        uint256 amount = amountOf[requestId];
        delete amountOf[requestId];
        (bool ok, ) = payable(msg.sender).call{value: amount}("");
        require(ok, "payment failed");
        emit WithdrawalClaimed(requestId, msg.sender, msg.sender, amount);
    }
}

interface IMintable {
    function mint(address to, uint256 amount) external;
    function burn(address from, uint256 amount) external;
}

/// An L2 token bridge (OP-stack dialect) with the real DepositFinalized and WithdrawalInitiated events.
contract L2TokenBridge {
    address public immutable l1Token;
    address public immutable l2Token;

    event DepositFinalized(address indexed l1Token, address indexed l2Token, address indexed from, address to, uint256 amount, bytes data);
    event WithdrawalInitiated(address indexed l1Token, address indexed l2Token, address indexed from, address to, uint256 amount, bytes data);

    constructor(address l1Token_, address l2Token_) {
        l1Token = l1Token_;
        l2Token = l2Token_;
    }

    function finalizeDeposit(address l1Token_, address l2Token_, address from, address to, uint256 amount, bytes calldata data) external {
        IMintable(l2Token_).mint(to, amount);
        emit DepositFinalized(l1Token_, l2Token_, from, to, amount, data);
    }

    function withdrawTo(address l2Token_, address to, uint256 amount, uint32, bytes calldata data) external {
        IMintable(l2Token_).burn(msg.sender, amount);
        emit WithdrawalInitiated(l1Token, l2Token_, msg.sender, to, amount, data);
    }
}
